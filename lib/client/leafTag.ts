import { readableLimit } from '../bizTag';
import type { Clock, TimerHandle } from '../clock';
import { LeafClientError, closedError } from './errors';
import type { Lease } from './lease';
import { type LeaseLimits, PREFETCH_AT_USED, nextLeaseSize } from './leaseSize';
import { askInRequests } from './askInRequests';
import { OpaqueBatches } from './opaqueBatches';
import { type OrderingWatch, noVouch } from './orderingWatch';

/** The largest `take`: the IDs come back as an array of bigints, ~40 MB at this size. */
export const MAX_TAKE = 1_000_000;
const MAX_SAFE_ID = BigInt(Number.MAX_SAFE_INTEGER);

export interface LeaseSource {
  lease(tag: string, count: number): Promise<Lease>;
  /** IDs asked for now: a strict tag's (no lease may hold its IDs), or an opaque tag's (`increasing` false). */
  take(tag: string, count: number, increasing?: boolean): Promise<bigint[]>;
  /** An opaque tag's batch, held like a lease: its IDs, and how long from asking they may go out (null: no limit). */
  batch(tag: string, count: number): Promise<{ ids: bigint[]; validMs: number | null }>;
}

/** One tag in the client: the current lease and a standby fetched in the background (Leaf's double buffer). */
export class LeafTag {
  /** The hot path: the run's next ID as a number (BigInt(number) is twice as fast as bigint arithmetic). */
  private cursor = 0;
  /** How far apart the run's IDs are: 1, or the region count of a regional fleet (the lease's stride). */
  private step = 1;
  /** The stride of the lease whose runs are queued. */
  private queuedStep = 1;
  private left = 0;
  private wide = false;
  private wideBase = 0n;
  /** `left` at or below which the next lease is fetched; -1 once fetched (or with no lease). */
  private prefetchAt = -1;
  /** The current lease's later runs `[start, end, …]` (a lease is usually one run) and how many IDs they hold. */
  private queued: bigint[] = [];
  private queuedCount = 0;
  /** The current lease: size, when it began to be used, and the lease-wide remaining count that triggers the prefetch. */
  private leaseSize = 0;
  private leaseStartedAt = 0;
  private leasePrefetchAt = 0;
  private standby: Lease | null = null;
  /**
   * When the current and standby leases stop being usable, by `monotonic` (the node's LEAF_RANGE_LEASE_VALID_MS from
   * the request): the claim log's time answers rely on it (docs/design.md#ids-that-tell-when).
   */
  private currentExpiresAt = Infinity;
  private standbyExpiresAt = Infinity;
  private expiry: TimerHandle | undefined;
  private loading: Promise<void> | null = null;
  private closed = false;
  /** The last failed lease request of this tag, for callers who want to see why a prefetch did not land. */
  lastError: LeafClientError | null = null;
  /**
   * The tag is strict (a renewal of the vouch said so, or the service refused a range lease): every call asks the
   * service, after the call was made, so the IDs keep the fleet-wide order (docs/design.md#ordered-tags).
   */
  private strict = false;
  /** The tag is opaque (the service refused a range lease as `opaque_tag_range`): permuted IDs in batches. */
  private batches: OpaqueBatches | null = null;
  /** One more each time the tag turns strict: a call that waited across it hands out nothing it took before. */
  private turnedStrict = 0;

  constructor(
    readonly name: string,
    private readonly source: LeaseSource,
    private readonly clock: Clock,
    private readonly limits: LeaseLimits,
    /** Leased IDs go out only while a node vouches for this client (orderingWatch.ts). */
    private readonly watch: OrderingWatch,
    /** Milliseconds that only grow: a lease's validity is not stretched by a stepped clock. */
    private readonly monotonic: () => number = () => performance.now(),
  ) {}

  next(): bigint | Promise<bigint> {
    if (this.left > 0 && this.watch.fresh) {
      const n = this.cursor;
      this.cursor = n + this.step;
      if (--this.left <= this.prefetchAt) this.prefetch();
      return this.wide ? this.wideBase + BigInt(n) : BigInt(n);
    }
    return this.nextSlow();
  }

  /** `count` IDs in increasing order within each lease: synchronously when buffered, else a promise. */
  take(count: number): bigint[] | Promise<bigint[]> {
    if (!Number.isSafeInteger(count) || count < 1 || count > MAX_TAKE) {
      throw new LeafClientError('invalid_count', `count must be a whole number from 1 to ${readableLimit(MAX_TAKE)}.`);
    }
    if (this.batches !== null) return this.batches.take(count);
    if (this.strict) return this.askNow(count);
    if (!this.watch.fresh && !this.watch.check()) return this.afterVouch(() => this.take(count));
    const out: bigint[] = [];
    return this.fill(out, count) ? out : this.takeSlow(out, count);
  }

  /**
   * The tag turned strict (or back): what it leased is dropped, never handed out — the nodes wait for this before
   * the change completes.
   */
  setStrict(strict: boolean): void {
    if (strict === this.strict) return;
    this.strict = strict;
    if (!strict) return;
    this.turnedStrict++;
    this.dropLeases();
  }

  /** IDs ready without a request: the current lease's rest plus the standby lease. */
  get buffered(): number {
    return this.left + this.queuedCount + (this.standby?.count ?? 0) + (this.batches?.buffered ?? 0);
  }

  /** Drops every leased ID (never to be issued) and fails whatever waits. */
  close(): void {
    this.closed = true;
    this.clock.clearTimeout(this.expiry);
    this.dropLeases();
    this.batches?.close();
  }

  private dropLeases(): void {
    this.dropCurrent();
    this.standby = null;
  }

  /** The current lease's rest becomes a gap: it is past its validity (or every lease goes). */
  private dropCurrent(): void {
    this.left = 0;
    this.prefetchAt = -1;
    this.queued = [];
    this.queuedCount = 0;
  }

  private nextSlow(): bigint | Promise<bigint> {
    if (this.closed) throw closedError();
    if (this.batches !== null) return this.batches.next();
    if (this.strict) return this.askNow(1).then((ids) => ids[0] as bigint);
    const vouched = this.watch.fresh || this.watch.check();
    if (vouched && (this.left > 0 || this.advance())) return this.next();
    // The vouch and the lease are asked for side by side: a first call waits for the slower, not for both in turn.
    const leased = this.left > 0 || this.queued.length > 0 || this.standby !== null;
    const lease = leased ? Promise.resolve() : this.waitForLease(1);
    const vouch = vouched ? Promise.resolve() : this.afterVouch(() => undefined);
    return Promise.all([lease, vouch]).then(
      () => this.nextSlow(),
      (error: unknown) => this.strictAfter(error, () => this.nextSlow()),
    );
  }

  /** `then` once a node vouched for this client again; `unavailable` when none did. */
  private afterVouch<T>(then: () => T | Promise<T>): Promise<T> {
    this.watch.start();
    return this.watch.renew().then((vouched) => {
      if (!vouched || !this.watch.check()) throw noVouch();
      return then();
    });
  }

  /** A refused range lease turns the tag strict or opaque, and `retry` asks again; any other failure stays one. */
  private strictAfter<T>(error: unknown, retry: () => T | Promise<T>): T | Promise<T> {
    if (!this.refusedRange(error)) throw error;
    return retry();
  }

  /** Whether `error` is a range lease refused for what the tag is; the tag's mode follows it. */
  private refusedRange(error: unknown): boolean {
    const code = (error as LeafClientError).code;
    if (code === 'opaque_tag_range') this.batches ??= new OpaqueBatches(this.source, this.name, this.monotonic);
    else if (code === 'strict_tag_range') this.setStrict(true);
    else return false;
    return true;
  }

  private askNow(count: number): Promise<bigint[]> {
    return askInRequests(this.source, this.name, count, true, () => this.closed);
  }

  private fill(out: bigint[], count: number): boolean {
    while (out.length < count) {
      if (this.left === 0 && !this.advance()) return false;
      const n = Math.min(count - out.length, this.left);
      const from = this.cursor;
      const step = this.step;
      if (this.wide) for (let i = 0; i < n; i++) out.push(this.wideBase + BigInt(from + i * step));
      else for (let i = 0; i < n; i++) out.push(BigInt(from + i * step));
      this.cursor = from + n * step;
      this.left -= n;
      if (this.left <= this.prefetchAt) this.prefetch();
    }
    return true;
  }

  private async takeSlow(out: bigint[], count: number): Promise<bigint[]> {
    const since = this.turnedStrict;
    this.watch.start();
    try {
      for (;;) {
        await this.waitForLease(count - out.length);
        // Taken before the tag turned strict, they are a gap; a vouch that ran out meanwhile is renewed first.
        if (this.turnedStrict !== since) return this.askNow(count);
        if (!this.watch.fresh && !this.watch.check()) await this.afterVouch(() => undefined);
        if (this.fill(out, count)) return out;
      }
    } catch (error) {
      if (!this.refusedRange(error)) throw error;
      return this.batches !== null ? this.batches.take(count) : this.askNow(count);
    }
  }

  /** Moves on to the current lease's next run, else to the standby lease. False when both are used up. */
  private advance(): boolean {
    if (this.closed) return false;
    const now = this.monotonic();
    if (now >= this.currentExpiresAt) this.dropCurrent();
    if (this.standby !== null && now >= this.standbyExpiresAt) this.standby = null;
    if (this.queued.length > 0) {
      const [start, end] = this.queued.splice(0, 2) as [bigint, bigint];
      this.startRun(start, end);
      return true;
    }
    if (this.standby === null) return false;
    const lease = this.standby;
    this.standby = null;
    this.leaseSize = lease.count;
    this.leaseStartedAt = this.clock.now();
    this.leasePrefetchAt = lease.count - Math.ceil(lease.count * PREFETCH_AT_USED);
    this.queued = lease.bounds.slice(2);
    this.queuedCount = lease.count;
    this.queuedStep = lease.stride;
    this.currentExpiresAt = this.standbyExpiresAt;
    this.clock.clearTimeout(this.expiry);
    // A timer, not a check per ID: the hot path stays a counter. A synchronous run can overrun it by its own length.
    if (this.currentExpiresAt !== Infinity)
      this.expiry = this.clock.setTimeout(() => this.dropCurrent(), Math.max(0, this.currentExpiresAt - now));
    this.startRun(lease.bounds[0] as bigint, lease.bounds[1] as bigint);
    return true;
  }

  private startRun(start: bigint, end: bigint): void {
    this.wide = end > MAX_SAFE_ID;
    this.wideBase = this.wide ? start : 0n;
    this.cursor = this.wide ? 0 : Number(start);
    this.step = this.queuedStep;
    this.left = Number((end - start) / BigInt(this.step)) + 1;
    this.queuedCount -= this.left;
    // The lease-wide trigger as a count left in this run; negative means a later run of the lease holds it.
    this.prefetchAt = this.leasePrefetchAt >= 0 ? this.leasePrefetchAt - this.queuedCount : -1;
    if (this.left <= this.prefetchAt) this.prefetch();
  }

  /** Waits for the lease in flight, or asks for one big enough for `atLeast` when none is. */
  private waitForLease(atLeast: number): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    return this.loading ?? this.load(Math.min(this.limits.maxLease, Math.max(atLeast, this.sizeNext(this.leaseSize))));
  }

  private prefetch(): void {
    this.leasePrefetchAt = -1;
    this.prefetchAt = -1;
    if (this.loading !== null || this.standby !== null || this.closed) return;
    const used = this.leaseSize - (this.left + this.queuedCount);
    this.load(this.sizeNext(used)).catch((error: LeafClientError) => {
      // A strict tag: what is leased goes at once (the watch says so within a poll anyway).
      if (error.code === 'strict_tag_range') return this.setStrict(true);
      // Try again once half of what is left is used: no timer, no loop, and a foreground request retries anyway.
      this.leasePrefetchAt = Math.floor((this.left + this.queuedCount) / 2);
      this.prefetchAt = this.leasePrefetchAt - this.queuedCount;
    });
  }

  private sizeNext(used: number): number {
    return nextLeaseSize(this.limits, this.leaseSize, used, this.clock.now() - this.leaseStartedAt);
  }

  private load(count: number): Promise<void> {
    // Before the request: the node takes the IDs after this, so the validity counts from no later than it does.
    const askedAt = this.monotonic();
    const loading = this.source.lease(this.name, count).then(
      (lease) => {
        this.loading = null;
        this.lastError = null;
        // A lease landing after close, or after the tag turned strict, is dropped: its IDs are never issued.
        if (!this.closed && !this.strict) {
          this.standby = lease;
          this.standbyExpiresAt = lease.validMs === null ? Infinity : askedAt + lease.validMs;
        }
      },
      (error: LeafClientError) => {
        this.loading = null;
        this.lastError = error;
        throw error;
      },
    );
    this.loading = loading;
    return loading;
  }
}
