import { MAX_LEASE_COUNT, formatLimit } from '../bizTag';
import { type Clock, type TimerHandle, systemClock } from '../clock';
import { LeafError, isLeafError, storeUnavailable, tagNotFound } from '../errors';
import { type Logger, silentLogger } from '../log';
import type { SegmentSource } from './segmentSource';
import { NO_BUFFER, type RetryBackoff, type Segment, type SegmentLoadRecord, TagBuffer, createSegment, segmentBounds } from './buffer';
import { type LatestClaim, type UnusedRun, givenBackMaxId, unusedTop } from './giveBack';
import { type Id, MAX_ID, MAX_ID_TEXT, idAt, toId } from './id';
import { SegmentTag, type TagHost } from './segmentTag';
import { nextStep } from './step';

export interface SegmentEngineOptions {
  store: SegmentSource;
  clock?: Clock;
  logger?: Logger;
  /** How often the tag list is re-read from the store (Leaf: 60 s). 0 disables the timer. */
  refreshIntervalMs?: number;
  /** How long a request that finds both segments empty waits for the in-flight load. */
  loadWaitMs?: number;
  /** An unknown tag triggers a tag-list re-read at most this often, so unknown tags cannot flood the store. */
  missRefreshMinIntervalMs?: number;
  /** Backoff after a failed background load: base and cap. Requests that find both segments empty retry at once. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Told of every segment load, ok or failed (metrics, the console's load log). Not on the per-ID path. */
  onLoad?: (bizTag: string, record: SegmentLoadRecord) => void;
}

/** IDs a graceful stop gave back to a tag's row: `first`..`last`, decimal strings; max_id moved from `maxIdBefore`. */
export interface GivenBack {
  bizTag: string;
  first: string;
  last: string;
  count: number;
  maxIdBefore: string;
  maxIdAfter: string;
}

export interface CloseOptions {
  /** Give back the unused top of each tag's latest claim (LEAF_GIVE_BACK). */
  giveBack: boolean;
  /** The whole give-back — waiting for claims in flight, then the compare-and-sets — ends within this. */
  timeoutMs?: number;
}

export interface TagSnapshot {
  bizTag: string;
  minStep: number;
  step: number;
  /** IDs as decimal strings: they may pass 2^53. */
  current: { start: string; max: string; next: string; step: number; remaining: number } | null;
  pending: { start: string; max: string; step: number } | null;
  loading: boolean;
  lastLoadAt: number | null;
  lastError: string | null;
  issuedTotal: number;
  waits: number;
  failedRequests: number;
}

/**
 * Leaf's segment mode: per tag, a double buffer of ID ranges claimed from the store.
 * Requests are served from memory; the store sees one write per segment.
 */
export class SegmentEngine {
  private readonly store: SegmentSource;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly refreshIntervalMs: number;
  private readonly loadWaitMs: number;
  private readonly missRefreshMinIntervalMs: number;
  private readonly retryBackoff: RetryBackoff;
  private readonly onLoad: ((bizTag: string, record: SegmentLoadRecord) => void) | undefined;

  private readonly buffers = new Map<string, TagBuffer>();
  /** Highest ID ever claimed per tag by this engine; outlives a deleted tag, so a reset row is caught. */
  private readonly highWater = new Map<string, bigint>();
  /** The claim that set highWater, per tag: the only one whose unused top a graceful stop may give back. */
  private readonly latestClaims = new Map<string, LatestClaim & { unusedWhole: UnusedRun | null }>();
  /** Claims sent to the store and not answered yet, per tag, and all of them (close awaits them). */
  private readonly claimsInFlight = new Map<string, number>();
  private readonly pendingClaims = new Set<Promise<unknown>>();
  /** Closed: nothing is served, loaded or claimed any more (set once, by close). */
  private frozen = false;
  private refreshing: Promise<void> | null = null;
  private lastRefreshAt: number | null = null;
  private lastRefreshError: Error | null = null;
  private refreshTimer: TimerHandle | null = null;
  /** The re-read that misses are waiting for (nextMissRefresh). */
  private missRefresh: Promise<void> | null = null;
  /** The tag `nextId` served last and its buffer: a caller on one tag skips the map lookup (a string compare). */
  private lastTag = '';
  private lastBuffer: TagBuffer = NO_BUFFER;
  /** What tag handles use of this engine. */
  private readonly host: TagHost = {
    bufferOf: (bizTag) => this.buffers.get(bizTag),
    serveSlowly: (buffer) => this.serveSlowly(buffer),
    nextId: (bizTag) => this.nextId(bizTag),
    takeIds: (bizTag, count) => this.takeIds(bizTag, count),
  };

  constructor(options: SegmentEngineOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.refreshIntervalMs = options.refreshIntervalMs ?? 60_000;
    this.loadWaitMs = options.loadWaitMs ?? 1_000;
    this.missRefreshMinIntervalMs = options.missRefreshMinIntervalMs ?? 1_000;
    this.retryBackoff = { baseMs: options.retryBaseMs ?? 100, maxMs: options.retryMaxMs ?? 5_000 };
    this.onLoad = options.onLoad;
  }

  /** Reads the tag list once and starts the periodic refresh. Resolves even when the store is down. */
  async start(): Promise<void> {
    if (this.refreshTimer === null && this.refreshIntervalMs > 0) {
      this.refreshTimer = this.clock.setInterval(() => void this.refreshTags(), this.refreshIntervalMs);
    }
    await this.refreshTags();
  }

  stop(): void {
    if (this.refreshTimer !== null) this.clock.clearInterval(this.refreshTimer);
    this.refreshTimer = null;
  }

  /** Re-reads the tag list: new tags appear, deleted tags go, DB steps update. Single-flight. */
  refreshTags(): Promise<void> {
    if (this.refreshing === null) {
      this.refreshing = this.doRefresh().finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    if (this.frozen) return;
    try {
      const tags = await this.store.listTags();
      if (this.frozen) return;
      const seen = new Set<string>();
      for (const { bizTag, step } of tags) {
        seen.add(bizTag);
        const buffer = this.buffers.get(bizTag);
        if (buffer === undefined) this.buffers.set(bizTag, new TagBuffer(bizTag, step));
        else buffer.setDbStep(step);
      }
      for (const bizTag of this.buffers.keys()) {
        if (!seen.has(bizTag)) {
          this.dropBuffer(this.buffers.get(bizTag) as TagBuffer);
          this.logger.log('info', 'tag_removed', { bizTag });
        }
      }
      this.lastRefreshError = null;
    } catch (error) {
      this.lastRefreshError = error as Error;
      this.logger.log('warn', 'tag_refresh_failed', { error });
    } finally {
      this.lastRefreshAt = this.clock.now();
    }
  }

  /** One ID. */
  async next(bizTag: string): Promise<Id> {
    return this.nextId(bizTag);
  }

  /** `count` IDs, possibly spanning segments, in increasing order. */
  async take(bizTag: string, count: number): Promise<Id[]> {
    return this.takeIds(bizTag, count);
  }

  /**
   * One ID: synchronously when a buffer can serve it (the common case, no promise allocated),
   * else a promise that settles once the in-flight load has landed or failed.
   * Throws (synchronously or through the promise) a LeafError. An ID above 2^53−1 is a bigint (lib/segment/id.ts).
   */
  nextId(bizTag: string): Id | Promise<Id> {
    const buffer = bizTag === this.lastTag ? this.lastBuffer : this.lookUpForNext(bizTag);
    // The hot path: below the segment's mark there is nothing to decide (see Segment.mark).
    const segment = buffer.head;
    const id = segment.next;
    if (id < segment.mark) {
      segment.next = id + 1;
      return id;
    }
    return this.nextIdSlowly(bizTag, buffer);
  }

  /** `nextId` past the segment's mark: a segment switch, the preload, or a wait for a load or the tag. */
  private nextIdSlowly(bizTag: string, buffer: TagBuffer): Id | Promise<Id> {
    const id = this.serveSlowly(buffer);
    if (id !== null) return id;
    // The wait may end on another buffer (a re-created tag): look it up next time. '' with NO_BUFFER, never with a
    // real buffer, so a caller asking for '' cannot be served another tag's IDs.
    this.lastTag = '';
    this.lastBuffer = NO_BUFFER;
    return this.takeSlow(bizTag, 1, newRanges()).then(firstId);
  }

  private lookUpForNext(bizTag: string): TagBuffer {
    const buffer = this.buffers.get(bizTag) ?? NO_BUFFER;
    this.lastTag = bizTag;
    this.lastBuffer = buffer;
    return buffer;
  }

  /**
   * One ID at or past the current segment's mark: moves on to the next segment when this one is used up and starts
   * the preload when due; every ID of a wide segment (above 2^53, its mark below every position) comes here to get
   * its base added. null when both segments are used up.
   */
  private serveSlowly(buffer: TagBuffer): Id | null {
    const segment = buffer.servingSegment();
    if (segment === null) return null;
    const id = segment.next++;
    this.maybePreload(buffer, segment);
    return segment.base === null ? id : idAt(segment.base, id);
  }

  /**
   * A handle on one tag: `handle.next()` is `nextId(bizTag)` without the per-call lookup, and stays right when the
   * tag is deleted or re-created under it (see SegmentTag). The tag need not be known yet: it is looked up on use.
   */
  tag(bizTag: string): SegmentTag {
    return new SegmentTag(bizTag, this.host);
  }

  /** `count` IDs, synchronously when the buffers hold enough, else a promise. */
  takeIds(bizTag: string, count: number): Id[] | Promise<Id[]> {
    const ranges = this.takeRanges(bizTag, count);
    return ranges instanceof Promise ? ranges.then(expandRanges) : expandRanges(ranges);
  }

  /**
   * `count` IDs as inclusive ranges, one per segment touched: the cheapest form for a caller that formats them
   * (the HTTP batch route), since IDs within a segment are consecutive.
   */
  takeRanges(bizTag: string, count: number): IdRanges | Promise<IdRanges> {
    if (!Number.isSafeInteger(count) || count < 1) {
      throw new LeafError('invalid_count', 'count must be a positive integer');
    }
    const out = newRanges();
    const buffer = this.buffers.get(bizTag);
    if (buffer !== undefined && this.fill(buffer, count, out)) return out;
    return this.takeSlow(bizTag, count, out);
  }

  /**
   * A range lease: exactly `count` IDs (1 to MAX_LEASE_COUNT) as inclusive increasing runs, for a caller that hands
   * them out itself. From the two segments when they hold enough (synchronously, like a batch). Otherwise a lease
   * larger than a segment of the tag's current step is claimed for itself — one `allocate(tag, count)` of exactly
   * its size, one run, the double buffer left as it was for single IDs — so a huge lease costs one claim, not
   * count/step of them, and does not inflate the dynamic step. A smaller one waits for the next segment like a
   * batch (a segment holds at least the step, so one or two loads). Every wait is bounded by `loadWaitMs`.
   */
  leaseRanges(bizTag: string, count: number): IdRanges | Promise<IdRanges> {
    if (!Number.isSafeInteger(count) || count < 1 || count > MAX_LEASE_COUNT) {
      throw new LeafError('invalid_count', `count must be a whole number from 1 to ${formatLimit(MAX_LEASE_COUNT)}.`);
    }
    const buffer = this.buffers.get(bizTag);
    if (buffer !== undefined && buffer.available() >= count) {
      const out = newRanges();
      this.fill(buffer, count, out);
      return out;
    }
    return this.leaseSlow(bizTag, count);
  }

  private async leaseSlow(bizTag: string, count: number): Promise<IdRanges> {
    if (this.frozen) throw engineClosed();
    const buffer = this.buffers.get(bizTag) ?? (await this.lookUpMissingTag(bizTag));
    if (count <= buffer.available() || count <= buffer.step) return this.takeSlow(bizTag, count, newRanges());
    try {
      const segment = await this.bounded(this.claim(buffer, count, 'lease'), () => {
        return new LeafError(
          'segment_unavailable',
          `A lease of ${count} IDs of tag "${bizTag}" was not claimed within ${this.loadWaitMs} ms; if it lands later, its IDs are skipped.`,
        );
      });
      if (segment.max - segment.start + 1 !== count) {
        throw new LeafError('store_unavailable', `The store claimed ${segment.step} IDs of tag "${bizTag}" for a lease of ${count}.`);
      }
      buffer.countLeasedDirectly(count);
      return { bounds: [segment.start, segment.max], count, bases: segment.base === null ? null : [segment.base] };
    } catch (error) {
      buffer.countFailedRequest();
      throw error;
    }
  }

  /** Takes IDs from the buffer into `out` until it holds `count`. Returns whether it got there. */
  private fill(buffer: TagBuffer, count: number, out: IdRanges): boolean {
    while (out.count < count) {
      const segment = buffer.servingSegment();
      if (segment === null) return false;
      const n = Math.min(count - out.count, segment.max - segment.next + 1);
      const first = segment.next;
      const bounds = out.bounds;
      // A segment that starts right after the one before (the common case) extends its run, when both count from
      // the same base (two wide segments across a base boundary stay two runs).
      if (bounds.length > 0 && bounds[bounds.length - 1] === first - 1 && lastBase(out) === segment.base) bounds[bounds.length - 1] = first + n - 1;
      else pushRun(out, first, first + n - 1, segment.base);
      out.count += n;
      segment.next = first + n;
      this.maybePreload(buffer, segment);
    }
    return true;
  }

  private async takeSlow(bizTag: string, count: number, out: IdRanges): Promise<IdRanges> {
    if (this.frozen) throw engineClosed();
    let buffer = this.buffers.get(bizTag);
    if (buffer === undefined) buffer = await this.lookUpMissingTag(bizTag);
    try {
      while (!this.fill(buffer, count, out)) {
        // Both segments are used up: share the in-flight load, or start one (a failed load is retried here).
        buffer.countWait();
        const load = buffer.loading ?? this.startLoad(buffer);
        await this.awaitLoad(buffer, load);
        if (this.buffers.get(bizTag) !== buffer) throw tagNotFound(bizTag);
      }
    } catch (error) {
      buffer.countFailedRequest();
      throw error;
    }
    return out;
  }

  /**
   * A tag this node does not know may have been created a moment ago through another node: wait for the next
   * allowed re-read of the tag list (a read already in flight may predate the tag, so it counts only as a first
   * look), then serve or 404. Every miss in the meantime shares that one read, so a flood of unknown tags costs at
   * most one read per `missRefreshMinIntervalMs`; a miss waits at most that long plus the read.
   */
  private async lookUpMissingTag(bizTag: string): Promise<TagBuffer> {
    if (this.refreshing !== null) await this.refreshing;
    let buffer = this.buffers.get(bizTag);
    if (buffer === undefined) {
      await this.nextMissRefresh();
      buffer = this.buffers.get(bizTag);
    }
    if (buffer !== undefined) return buffer;
    if (this.lastRefreshError !== null) throw storeUnavailable(this.lastRefreshError);
    throw tagNotFound(bizTag);
  }

  /** The next re-read of the tag list a miss may cause: now if the last one is old enough, else when it is. */
  private nextMissRefresh(): Promise<void> {
    const last = this.lastRefreshAt;
    const wait = last === null ? 0 : last + this.missRefreshMinIntervalMs - this.clock.now();
    if (wait <= 0) return this.refreshTags();
    this.missRefresh ??= new Promise<void>((resolve) => this.clock.setTimeout(resolve, wait)).then(() => {
      this.missRefresh = null;
      return this.refreshTags();
    });
    return this.missRefresh;
  }

  private awaitLoad(buffer: TagBuffer, load: Promise<void>): Promise<void> {
    return this.bounded(load, () => {
      return new LeafError(
        'segment_unavailable',
        `Both segments of tag "${buffer.bizTag}" are used up and the next one did not arrive within ${this.loadWaitMs} ms.`,
      );
    });
  }

  /** `work`, or `timedOut()` thrown once `loadWaitMs` has passed; a failure that is not a LeafError is the store's. */
  private async bounded<T>(work: Promise<T>, timedOut: () => LeafError): Promise<T> {
    let timer: TimerHandle | undefined;
    const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = this.clock.setTimeout(() => resolve(TIMED_OUT), this.loadWaitMs);
    });
    try {
      const outcome = await Promise.race([work, timeout]);
      if (outcome === TIMED_OUT) throw timedOut();
      return outcome as T;
    } catch (error) {
      throw isLeafError(error) ? error : storeUnavailable(error);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  private maybePreload(buffer: TagBuffer, segment: Segment): void {
    if (
      segment.next >= segment.preloadAt &&
      buffer.pending === null &&
      buffer.loading === null &&
      this.clock.now() >= buffer.retryAfter
    ) {
      void this.startLoad(buffer);
    }
  }

  /** Starts the one load of `buffer`'s next segment. The returned promise rejects on failure; nothing is unhandled. */
  private startLoad(buffer: TagBuffer): Promise<void> {
    const load = this.load(buffer);
    buffer.beginLoad(load);
    load.then(
      () => buffer.loadRecovered(),
      (error: Error) => buffer.loadFailed(error, this.clock.now(), this.retryBackoff),
    );
    return load;
  }

  private async load(buffer: TagBuffer): Promise<void> {
    const step =
      buffer.lastLoadAt === undefined
        ? undefined // the first load takes the DB's step
        : nextStep({ step: buffer.step, minStep: buffer.minStep, sinceLastLoadMs: this.clock.now() - buffer.lastLoadAt });
    const segment = await this.claim(buffer, step, 'segment');
    buffer.loadSucceeded(segment, this.clock.now(), step === undefined);
  }

  /**
   * One claim from the store (`step` undefined: the row's own), checked before anything is served from it. The
   * regression guard compares with the highest ID of the claims this engine had finished when this one began:
   * those were committed before its UPDATE, so it must lie above them; a claim running at the same time (a lease
   * beside a segment load) may land in either order.
   */
  private async claim(buffer: TagBuffer, step: number | undefined, purpose: 'segment' | 'lease'): Promise<Segment> {
    if (this.frozen) throw engineClosed();
    const startedAt = this.clock.now();
    const floor = this.highWater.get(buffer.bizTag);
    try {
      const allocation = await this.inFlight(buffer.bizTag, this.store.allocate(buffer.bizTag, step));
      if (!usableAllocation(allocation.maxId, allocation.step)) {
        throw new LeafError(
          'id_space_exhausted',
          `Tag "${buffer.bizTag}" returned an unusable segment (max_id ${allocation.maxId}, step ${allocation.step}); IDs end at ${MAX_ID_TEXT}.`,
        );
      }
      const segment = createSegment(allocation.maxId, allocation.step, allocation.semantics);
      const { first, last } = segmentBounds(segment);
      if (floor !== undefined && first <= floor) {
        // The row went backwards (restored backup, manual edit): serving it would repeat IDs.
        throw new LeafError(
          'segment_regressed',
          `Tag "${buffer.bizTag}" returned segment ${first}..${last}, at or below ID ${floor} already claimed; refusing to serve it.`,
        );
      }
      const high = this.highWater.get(buffer.bizTag);
      if (high === undefined || last > high) {
        this.highWater.set(buffer.bizTag, last);
        // A segment landing after close was never installed, so never served: all of it is unused.
        const unusedWhole = this.frozen && purpose === 'segment' ? { first, last } : null;
        this.latestClaims.set(buffer.bizTag, { maxId: allocation.maxId, step: allocation.step, semantics: allocation.semantics, purpose, unusedWhole });
      }
      const loadedAt = this.clock.now();
      this.onLoad?.(buffer.bizTag, { at: startedAt, durationMs: loadedAt - startedAt, step: allocation.step, ok: true });
      this.logger.log('info', purpose === 'lease' ? 'lease_claimed' : 'segment_loaded', {
        bizTag: buffer.bizTag,
        start: String(first),
        max: String(last),
        step: segment.step,
        semantics: allocation.semantics,
        durationMs: loadedAt - startedAt,
      });
      return segment;
    } catch (error) {
      const leafError = isLeafError(error) ? error : storeUnavailable(error);
      this.onLoad?.(buffer.bizTag, {
        at: startedAt,
        durationMs: this.clock.now() - startedAt,
        step: step ?? buffer.minStep,
        ok: false,
        error: leafError.code,
      });
      this.logger.log(leafError.code === 'segment_regressed' ? 'error' : 'warn', purpose === 'lease' ? 'lease_claim_failed' : 'segment_load_failed', {
        bizTag: buffer.bizTag,
        code: leafError.code,
        error,
      });
      if (leafError.code === 'tag_not_found' && this.buffers.get(buffer.bizTag) === buffer) this.dropBuffer(buffer);
      throw leafError;
    }
  }

  /** `claim` while the store answers: counted per tag, so close knows which tags have a claim it cannot see yet. */
  private inFlight<T>(bizTag: string, claim: Promise<T>): Promise<T> {
    this.claimsInFlight.set(bizTag, (this.claimsInFlight.get(bizTag) ?? 0) + 1);
    this.pendingClaims.add(claim);
    const settled = (): void => {
      this.claimsInFlight.set(bizTag, (this.claimsInFlight.get(bizTag) ?? 1) - 1);
      this.pendingClaims.delete(claim);
    };
    claim.then(settled, settled);
    return claim;
  }

  /**
   * Graceful stop. First, synchronously, nothing more is served, loaded or claimed: every buffer is retired and what
   * its segments had not handed out is noted. Then, with `giveBack`, claims still in flight are awaited, and each
   * tag's latest claim gives back its unused top (see giveBack.ts) by one compare-and-set — all of it within
   * `timeoutMs`; a tag whose claim has not landed by then, or whose row moved, or a store that fails or hangs, gives
   * back nothing. Returns what was given back. Does not close the store.
   */
  async close(options: CloseOptions): Promise<GivenBack[]> {
    const unused = this.freeze();
    const store = this.store;
    if (!options.giveBack || store.giveBack === undefined) return [];
    const given: GivenBack[] = [];
    let timer: TimerHandle | undefined;
    const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = this.clock.setTimeout(() => resolve(TIMED_OUT), options.timeoutMs ?? 2_000);
    });
    try {
      await Promise.race([Promise.allSettled([...this.pendingClaims]), deadline]);
      const backs: Promise<void>[] = [];
      for (const [bizTag, latest] of this.latestClaims) {
        if ((this.claimsInFlight.get(bizTag) ?? 0) > 0) continue; // a claim it cannot see may be the latest
        const runs = unused.get(bizTag) ?? [];
        const first = unusedTop(latest, latest.unusedWhole === null ? runs : [...runs, latest.unusedWhole]);
        if (first === null) continue;
        const maxIdAfter = toId(givenBackMaxId(first, latest.semantics));
        const back = store.giveBack(bizTag, latest.maxId, maxIdAfter).then((done) => {
          if (!done) return this.logger.log('info', 'give_back_skipped', { bizTag, reason: 'max_id moved since this node claimed' });
          const last = BigInt(latest.maxId) - BigInt(maxIdAfter) + first - 1n;
          const entry = { bizTag, first: String(first), last: String(last), count: Number(last - first + 1n), maxIdBefore: String(latest.maxId), maxIdAfter: String(maxIdAfter) };
          given.push(entry);
          this.logger.log('info', 'ids_given_back', { ...entry });
        });
        backs.push(back);
      }
      if ((await Promise.race([Promise.all(backs), deadline])) === TIMED_OUT) {
        this.logger.log('warn', 'give_back_failed', { error: `the store did not answer within ${options.timeoutMs ?? 2_000} ms`, given: given.length });
      }
    } catch (error) {
      this.logger.log('warn', 'give_back_failed', { error, given: given.length });
    } finally {
      this.clock.clearTimeout(timer);
    }
    return [...given];
  }

  /** Stops serving at once: every buffer retired, and the IDs its two segments had not handed out, per tag. */
  private freeze(): Map<string, UnusedRun[]> {
    this.frozen = true;
    this.stop();
    const unused = new Map<string, UnusedRun[]>();
    for (const [bizTag, buffer] of this.buffers) {
      const runs: UnusedRun[] = [];
      const current = buffer.current;
      if (current !== null && current.next <= current.max) runs.push(segmentBounds({ ...current, start: current.next }));
      if (buffer.pending !== null) runs.push(segmentBounds(buffer.pending));
      unused.set(bizTag, runs);
      buffer.retire();
    }
    this.lastTag = '';
    this.lastBuffer = NO_BUFFER;
    return unused;
  }

  /** The tag is gone: its buffer leaves the map and is emptied, so no handle or cache serves from it again. */
  private dropBuffer(buffer: TagBuffer): void {
    this.buffers.delete(buffer.bizTag);
    buffer.retire();
  }

  /** Tags currently known, sorted. */
  tags(): string[] {
    return [...this.buffers.keys()].sort();
  }

  snapshot(bizTag: string): TagSnapshot | undefined {
    const b = this.buffers.get(bizTag);
    if (b === undefined) return undefined;
    const c = b.current;
    const p = b.pending;
    return {
      bizTag,
      minStep: b.minStep,
      step: b.step,
      current: c && { start: idText(c, c.start), max: idText(c, c.max), next: idText(c, c.next), step: c.step, remaining: b.remainingInCurrent() },
      pending: p && { start: idText(p, p.start), max: idText(p, p.max), step: p.step },
      loading: b.loading !== null,
      lastLoadAt: b.lastLoadAt ?? null,
      lastError: b.lastError?.message ?? null,
      issuedTotal: b.issuedTotal(),
      waits: b.waits,
      failedRequests: b.failedRequests,
    };
  }

  /** IDs issued per tag so far (cheap: derived from segment positions). */
  issuedTotals(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [bizTag, b] of this.buffers) out.set(bizTag, b.issuedTotal());
    return out;
  }

  status(): { tagsKnown: number; tagsLoaded: number; lastRefreshAt: number | null; lastRefreshError: string | null } {
    let loaded = 0;
    for (const b of this.buffers.values()) if (b.current !== null) loaded++;
    return {
      tagsKnown: this.buffers.size,
      tagsLoaded: loaded,
      lastRefreshAt: this.lastRefreshAt,
      lastRefreshError: this.lastRefreshError?.message ?? null,
    };
  }
}

const TIMED_OUT = Symbol('timed out');

function engineClosed(): LeafError {
  return new LeafError('closed', 'This node is stopping: it serves no more IDs.');
}

/**
 * IDs as inclusive runs `[first0, last0, first1, last1, …]` of segment positions; `count` is how many IDs they hold.
 * `bases` is null while every run is of ordinary segments (the positions are the IDs); else run i's IDs are
 * `bases[i]` + its positions, `bases[i]` null for an ordinary run (see Segment).
 */
export interface IdRanges {
  bounds: number[];
  count: number;
  bases: Array<bigint | null> | null;
}

function newRanges(): IdRanges {
  return { bounds: [], count: 0, bases: null };
}

function lastBase({ bases }: IdRanges): bigint | null {
  return bases === null ? null : (bases[bases.length - 1] as bigint | null);
}

function pushRun(out: IdRanges, first: number, last: number, base: bigint | null): void {
  if (base !== null && out.bases === null) out.bases = new Array<bigint | null>(out.bounds.length / 2).fill(null);
  out.bounds.push(first, last);
  out.bases?.push(base);
}

/** The base of run `r` (an index into bounds, even). */
export function runBase(ranges: IdRanges, r: number): bigint | null {
  return ranges.bases === null ? null : (ranges.bases[r >> 1] as bigint | null);
}

function firstId(ranges: IdRanges): Id {
  return idAt(runBase(ranges, 0), ranges.bounds[0] as number);
}

export function expandRanges(ranges: IdRanges): Id[] {
  const { bounds, count } = ranges;
  const ids = new Array<Id>(count);
  let k = 0;
  for (let r = 0; r < bounds.length; r += 2) {
    const base = runBase(ranges, r);
    const last = bounds[r + 1] as number;
    if (base === null) for (let id = bounds[r] as number; id <= last; id++) ids[k++] = id;
    else for (let id = bounds[r] as number; id <= last; id++) ids[k++] = idAt(base, id);
  }
  return ids;
}

/** An allocation the engine can serve from: max_id an exact integer within BIGINT, a step of at least one. */
function usableAllocation(maxId: Id, step: number): boolean {
  if (!Number.isSafeInteger(step) || step < 1) return false;
  return typeof maxId === 'bigint' ? maxId <= MAX_ID : Number.isSafeInteger(maxId);
}

/** The ID at a segment position, as decimal text. */
function idText(s: Segment, position: number): string {
  return String(idAt(s.base, position));
}
