/**
 * The strict tags this node owns: each lease taken, renewed and given up here, and checked against this process's
 * monotonic clock before every ID (docs/design.md#ordered-tags).
 */
import type { Clock, TimerHandle } from '../clock';
import { TIMED_OUT, within } from '../deadline';
import type { Logger } from '../log';
import type { LeaseTerms, OrderStore, OwnerClaim } from './orderStore';

/** A lease this node holds: its epoch, and until when (monotonic ms) it may serve. */
interface Held {
  readonly epoch: number;
  /** Monotonic ms when the acquire left: a read begun before it cannot know of it. */
  readonly sentAt: number;
  deadline: number;
  renewing: boolean;
}

/** What a change of ownership does to the engine: the tag starts over on segments claimed from now on. */
export interface OwnedEngine {
  restart(bizTag: string): void;
}

export interface OwnershipOptions {
  store: OrderStore;
  engine: OwnedEngine;
  self: OwnerClaim;
  terms: LeaseTerms;
  clock: Clock;
  /** Milliseconds that only ever grow (a paused process sees them jump): performance.now by default. */
  monotonic: () => number;
  logger: Logger;
}

export class Ownership {
  private readonly held = new Map<string, Held>();
  private readonly acquiring = new Map<string, Promise<boolean>>();
  private timer: TimerHandle | null = null;
  /** Leases this node took, and lost without giving them up: the metrics' ownership changes. */
  acquired = 0;
  lost = 0;

  constructor(private readonly o: OwnershipOptions) {}

  /** Renews every lease three times per its length, so two lost renewals in a row still leave it live. */
  start(): void {
    this.timer ??= this.o.clock.setInterval(() => this.renewAll(), Math.max(1, Math.floor(this.o.terms.leaseMs / 3)));
  }

  /** Whether this node may hand out an ID of `bizTag` now: it holds the lease and the lease is live by its clock. */
  mayServe(bizTag: string): boolean {
    return this.servingEpoch(bizTag) !== null;
  }

  /** The epoch of the live lease this node holds on `bizTag`, or null: IDs taken under it stay under it. */
  servingEpoch(bizTag: string): number | null {
    const held = this.held.get(bizTag);
    return held !== undefined && this.o.monotonic() < held.deadline ? held.epoch : null;
  }

  owned(): string[] {
    return [...this.held.keys()].sort();
  }

  /**
   * Takes the lease after epoch `seenEpoch` (one attempt per tag at a time, shared by its waiters): the tag then
   * starts over on an empty buffer, so its first ID comes from a segment claimed after every earlier owner's.
   */
  acquire(bizTag: string, seenEpoch: number): Promise<boolean> {
    let attempt = this.acquiring.get(bizTag);
    if (attempt !== undefined) return attempt;
    attempt = this.tryAcquire(bizTag, seenEpoch).finally(() => this.acquiring.delete(bizTag));
    this.acquiring.set(bizTag, attempt);
    return attempt;
  }

  private async tryAcquire(bizTag: string, seenEpoch: number): Promise<boolean> {
    if (this.mayServe(bizTag)) return true;
    // The lease counts from before the request left: the database's expiry is at least this far away.
    const sentAt = this.o.monotonic();
    let won: boolean;
    try {
      won = await this.o.store.acquireOwner(bizTag, this.o.self, this.o.terms, seenEpoch);
    } catch (error) {
      this.o.logger.log('warn', 'ownership_acquire_failed', { bizTag, error });
      return false;
    }
    if (!won) return false;
    this.held.delete(bizTag); // an older epoch of ours, run out: the restart below drops its segments
    this.o.engine.restart(bizTag);
    const epoch = seenEpoch + 1;
    this.held.set(bizTag, { epoch, sentAt, deadline: this.deadlineFrom(sentAt), renewing: false });
    this.acquired++;
    this.o.logger.log('info', 'ownership_acquired', { bizTag, epoch });
    return true;
  }

  /**
   * A read begun at `readAt` (monotonic) saw the row move on (another epoch, another owner, the tag no longer strict):
   * stop serving it. A read begun before this lease was asked for predates it and says nothing of it.
   */
  confirm(bizTag: string, epoch: number | null, instanceId: string | null, readAt: number): void {
    const held = this.held.get(bizTag);
    if (held === undefined || readAt < held.sentAt) return;
    if (held.epoch === epoch && instanceId === this.o.self.instanceId) return;
    this.lose(bizTag, held, 'the row moved on');
  }

  /** The tag is no longer strict here (turned back, deleted): its lease is of no use. */
  forget(bizTag: string): void {
    const held = this.held.get(bizTag);
    if (held !== undefined) this.lose(bizTag, held, 'the tag is no longer strict');
  }

  private renewAll(): void {
    for (const [bizTag, held] of this.held) if (!held.renewing) void this.renew(bizTag, held);
  }

  private async renew(bizTag: string, held: Held): Promise<void> {
    held.renewing = true;
    const sentAt = this.o.monotonic();
    try {
      const kept = await this.o.store.renewOwner(bizTag, this.o.self.instanceId, held.epoch, this.o.terms.leaseMs);
      if (this.held.get(bizTag) !== held) return;
      if (kept) held.deadline = Math.max(held.deadline, this.deadlineFrom(sentAt));
      else this.lose(bizTag, held, 'the renewal was refused');
    } catch (error) {
      // The lease runs out by itself if no renewal gets through: the tag then answers 503, never out of order.
      this.o.logger.log('warn', 'ownership_renew_failed', { bizTag, epoch: held.epoch, error });
    } finally {
      held.renewing = false;
    }
  }

  /** A margin short of the database's expiry, which is at least `leaseMs` after `sentAt`. */
  private deadlineFrom(sentAt: number): number {
    return sentAt + this.o.terms.leaseMs - this.o.terms.marginMs;
  }

  private lose(bizTag: string, held: Held, reason: string): void {
    this.drop(bizTag);
    this.lost++;
    this.o.logger.log('warn', 'ownership_lost', { bizTag, epoch: held.epoch, reason });
  }

  /** Stops serving the tag and forgets its segments: a later epoch of ours starts above its successor's. */
  private drop(bizTag: string): void {
    if (!this.held.delete(bizTag)) return;
    this.o.engine.restart(bizTag);
  }

  /** After the engine stopped serving: every lease given up, so the next owners start at once (bounded). */
  async release(timeoutMs: number): Promise<void> {
    this.o.clock.clearInterval(this.timer ?? undefined);
    this.timer = null;
    const leases = [...this.held.entries()];
    this.held.clear();
    await Promise.all(
      leases.map(async ([bizTag, { epoch }]) => {
        try {
          const done = await within(
            this.o.clock,
            timeoutMs,
            this.o.store.releaseOwner(bizTag, this.o.self.instanceId, epoch),
          );
          if (done === TIMED_OUT) throw new Error(`no answer within ${timeoutMs} ms`);
          this.o.logger.log('info', 'ownership_released', { bizTag, epoch });
        } catch (error) {
          // The lease then runs out by itself: the next owner waits for it.
          this.o.logger.log('warn', 'ownership_release_failed', { bizTag, epoch, error });
        }
      }),
    );
  }
}
