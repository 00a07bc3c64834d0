import { type Clock, systemClock } from '../clock';
import { LeafError } from '../errors';

export interface LoginThrottleOptions {
  clock?: Clock;
  /** Wrong tokens an address may send before any lock-out. */
  freeFailures?: number;
  /** The first lock-out; each further failure doubles it. */
  baseLockMs?: number;
  maxLockMs?: number;
  /** An address with no failure for this long starts again from nothing. */
  forgetAfterMs?: number;
  /** Addresses remembered at most (least recently failed forgotten first), so a flood of addresses cannot grow memory. */
  maxAddresses?: number;
}

interface Failures {
  count: number;
  lastAt: number;
  lockedUntil: number;
}

/** Per address, in memory: past `freeFailures` each wrong token doubles the lockout (429 at once, nothing sleeps). */
export class LoginThrottle {
  private readonly clock: Clock;
  private readonly freeFailures: number;
  private readonly baseLockMs: number;
  private readonly maxLockMs: number;
  private readonly forgetAfterMs: number;
  private readonly maxAddresses: number;
  /** Insertion order is recency order: a failure re-inserts its address at the end. */
  private readonly byAddress = new Map<string, Failures>();

  constructor({
    clock = systemClock,
    freeFailures = 5,
    baseLockMs = 1_000,
    maxLockMs = 5 * 60_000,
    forgetAfterMs = 15 * 60_000,
    maxAddresses = 10_000,
  }: LoginThrottleOptions = {}) {
    this.clock = clock;
    this.freeFailures = freeFailures;
    this.baseLockMs = baseLockMs;
    this.maxLockMs = maxLockMs;
    this.forgetAfterMs = Math.max(forgetAfterMs, maxLockMs);
    this.maxAddresses = maxAddresses;
  }

  /** Throws `too_many_attempts` (with the seconds to wait) while `address` is locked out. */
  check(address: string): void {
    const wait = this.lockedForMs(address);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new LeafError('too_many_attempts', `Too many wrong tokens from this address; try again in ${seconds} s.`, {
        retryAfterSeconds: seconds,
      });
    }
  }

  /** Milliseconds until `address` may try again; 0 when it may now. */
  lockedForMs(address: string): number {
    const f = this.current(address);
    return f === undefined ? 0 : Math.max(0, f.lockedUntil - this.clock.now());
  }

  failure(address: string): void {
    const now = this.clock.now();
    const f = this.current(address) ?? { count: 0, lastAt: now, lockedUntil: 0 };
    f.count += 1;
    f.lastAt = now;
    const over = f.count - this.freeFailures;
    if (over > 0) f.lockedUntil = now + Math.min(this.maxLockMs, this.baseLockMs * 2 ** Math.min(over - 1, 30));
    this.byAddress.delete(address);
    this.byAddress.set(address, f);
    if (this.byAddress.size > this.maxAddresses) this.byAddress.delete(this.byAddress.keys().next().value as string);
  }

  success(address: string): void {
    this.byAddress.delete(address);
  }

  /** Addresses remembered now (tests). */
  get size(): number {
    return this.byAddress.size;
  }

  private current(address: string): Failures | undefined {
    const f = this.byAddress.get(address);
    if (f !== undefined && this.clock.now() - f.lastAt > this.forgetAfterMs) {
      this.byAddress.delete(address);
      return undefined;
    }
    return f;
  }
}

const KEY = Symbol.for('leaf-ts.loginThrottle');

/** This process's throttle, on globalThis like the runtime, so every bundle of the routes shares one. */
export function processLoginThrottle(): LoginThrottle {
  const g = globalThis as unknown as Record<symbol, LoginThrottle | undefined>;
  return (g[KEY] ??= new LoginThrottle());
}
