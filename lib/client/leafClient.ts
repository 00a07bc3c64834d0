import { type Clock, systemClock } from '../clock';
import { BIZ_TAG_MAX_LENGTH, isValidBizTag } from '../bizTag';
import { LeafClientError, closedError } from './errors';
import { MAX_LEASE_COUNT } from './lease';
import { type FetchLike, LeaseFetcher } from './leaseFetcher';
import type { LeaseLimits } from './leaseSize';
import { LeafTag } from './leafTag';
import { OrderingWatch } from './orderingWatch';

export interface LeafClientOptions {
  /** Base URLs of leaf-ts nodes (`http://10.0.0.5:3000`), tried in turn when one fails or times out. */
  urls: string[];
  /** Sent as `Authorization: Bearer …` (the servers' LEAF_ID_TOKEN). */
  token?: string;
  /** Bound of one lease request to one server, headers and body. Default 2,000 ms. */
  timeoutMs?: number;
  /** Default: the global fetch. */
  fetch?: FetchLike;
  /** Default: the system clock. Tests pass a fake one. */
  clock?: Clock;
  /** First lease of a tag and the floor of every later one. Default 100. */
  minLease?: number;
  /** Ceiling of one lease; at most 10,000,000 (the route's limit). Default 10,000,000. */
  maxLease?: number;
  /** How long a lease should last at the observed rate. Default 30,000 ms. */
  leaseTargetMs?: number;
}

function invalid(message: string): LeafClientError {
  return new LeafClientError('invalid_options', message);
}

function wholeIn(name: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw invalid(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

/** IDs from local memory, leased from the nodes; each leased ID is handed out once, an unconfirmed lease dropped. */
export class LeafClient {
  private readonly tags = new Map<string, LeafTag>();
  /** The tag asked for last: a caller on one tag skips the map lookup (a string compare, usually by pointer). */
  private lastTag: LeafTag | undefined;
  private readonly fetcher: LeaseFetcher;
  private readonly clock: Clock;
  private readonly limits: LeaseLimits;
  /** The vouch leased IDs are handed out under, and which tags are strict (docs/design.md#ordered-tags). */
  private readonly watch: OrderingWatch;
  /** Milliseconds that only grow: vouches and lease validity are measured on it. */
  private readonly monotonic: () => number;
  private closed = false;

  constructor(options: LeafClientOptions) {
    if (!Array.isArray(options.urls) || options.urls.length === 0) throw invalid('urls must list at least one server');
    for (const url of options.urls) {
      if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw invalid(`${url} is not an http(s) URL`);
    }
    const fetchImpl = options.fetch ?? (globalThis.fetch as FetchLike | undefined);
    if (fetchImpl === undefined) throw invalid('no fetch: pass options.fetch');
    const minLease = wholeIn('minLease', options.minLease ?? 100, 1, MAX_LEASE_COUNT);
    this.limits = {
      minLease,
      maxLease: wholeIn('maxLease', options.maxLease ?? MAX_LEASE_COUNT, minLease, MAX_LEASE_COUNT),
      targetMs: wholeIn('leaseTargetMs', options.leaseTargetMs ?? 30_000, 1, 3_600_000),
    };
    this.clock = options.clock ?? systemClock;
    this.fetcher = new LeaseFetcher({
      urls: options.urls,
      token: options.token,
      timeoutMs: wholeIn('timeoutMs', options.timeoutMs ?? 2_000, 1, 60_000),
      fetch: fetchImpl,
      clock: this.clock,
    });
    // A stepped wall clock must not stretch a vouch: the system's monotonic clock, or the injected one in tests.
    const monotonic = options.clock === undefined ? () => performance.now() : () => this.clock.now();
    this.monotonic = monotonic;
    this.watch = new OrderingWatch(globalThis.crypto.randomUUID(), this.fetcher, this.clock, monotonic, (strict) => {
      for (const handle of this.tags.values()) handle.setStrict(strict.has(handle.name));
    });
  }

  /** A bigint synchronously while buffered, else a Promise<bigint>; throws a LeafClientError either way. */
  nextId(tag: string): bigint | Promise<bigint> {
    const last = this.lastTag;
    if (last !== undefined && last.name === tag) return last.next();
    return (this.lastTag = this.tag(tag)).next();
  }

  /** `count` IDs of `tag` (1 to 1,000,000): synchronously when buffered, else a promise. */
  take(tag: string, count: number): bigint[] | Promise<bigint[]> {
    return this.tag(tag).take(count);
  }

  /** The tag's handle: `handle.next()` is `nextId` without the lookup. Throws `invalid_tag` for a malformed name. */
  tag(tag: string): LeafTag {
    let handle = this.tags.get(tag);
    if (handle === undefined) {
      if (this.closed) throw closedError();
      if (typeof tag !== 'string' || !isValidBizTag(tag)) {
        throw new LeafClientError(
          'invalid_tag',
          `A tag is 1–${BIZ_TAG_MAX_LENGTH} characters of letters, digits, "_", "-", "." or ":".`,
        );
      }
      handle = new LeafTag(tag, this.fetcher, this.clock, this.limits, this.watch, this.monotonic);
      handle.setStrict(this.watch.isStrict(tag));
      this.tags.set(tag, handle);
    }
    return handle;
  }

  /** Abandons requests in flight, rejects waiting calls with `closed`; leased IDs left become gaps. */
  close(): void {
    this.closed = true;
    this.watch.close();
    for (const handle of this.tags.values()) handle.close();
    this.fetcher.close();
  }
}
