import { MAX_LEASE_COUNT, readableLimit } from '../bizTag';
import { type Clock, systemClock } from '../clock';
import { LeafError, tagNotFound } from '../errors';
import { type Logger, silentLogger } from '../log';
import type { SegmentSource } from './segmentSource';
import { NO_BUFFER, type SegmentLoadRecord, type TagBuffer } from './buffer';
import { SegmentClaims, engineClosed } from './claims';
import type { UnusedRun } from './giveBack';
import { type Id, idAt } from './id';
import { type IdRanges, appendRun, expandRanges, firstId, newRanges } from './idRanges';
import { SegmentLoader } from './loader';
import { SegmentTag, type HandleEngine } from './segmentTag';
import { type CloseOptions, type GivenBack, giveBackUnused } from './shutdown';
import { type TagSnapshot, tagSnapshot } from './snapshot';
import { TagBuffers } from './tagBuffers';
import { TagDirectory } from './tagDirectory';

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

/**
 * Leaf's segment mode: per tag, a double buffer of ID ranges claimed from the store.
 * Requests are served from memory; the store sees one write per segment.
 */
export class SegmentEngine {
  private readonly clock: Clock;
  private readonly buffers = new TagBuffers();
  /** The tag list, kept fresh from the store. */
  private readonly directory: TagDirectory;
  private readonly claims: SegmentClaims;
  private readonly loader: SegmentLoader;
  private readonly store: SegmentSource;
  private readonly logger: Logger;
  /** Closed: nothing is served, loaded or claimed any more (set once, by close). */
  private frozen = false;
  /** The tag `nextId` served last and its buffer: a caller on one tag skips the map lookup (a string compare). */
  private lastTag = '';
  private lastBuffer: TagBuffer = NO_BUFFER;
  /** What tag handles use of this engine. */
  private readonly forHandles: HandleEngine = {
    bufferOf: (bizTag) => this.buffers.get(bizTag),
    serveSlowly: (buffer) => this.serveSlowly(buffer),
    nextId: (bizTag) => this.nextId(bizTag),
    takeIds: (bizTag, count) => this.takeIds(bizTag, count),
  };

  constructor(options: SegmentEngineOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.directory = new TagDirectory({
      clock: this.clock,
      logger: this.logger,
      refreshIntervalMs: options.refreshIntervalMs ?? 60_000,
      missRefreshMinIntervalMs: options.missRefreshMinIntervalMs ?? 1_000,
      reread: () => this.applyTagList(),
      failedEvent: 'tag_refresh_failed',
    });
    this.claims = new SegmentClaims({
      store: this.store,
      clock: this.clock,
      logger: this.logger,
      closed: () => this.frozen,
      tagGone: (buffer) => this.buffers.get(buffer.bizTag) === buffer && this.buffers.drop(buffer),
      onLoad: options.onLoad,
    });
    this.loader = new SegmentLoader({
      claims: this.claims,
      clock: this.clock,
      loadWaitMs: options.loadWaitMs ?? 1_000,
      retryBackoff: { baseMs: options.retryBaseMs ?? 100, maxMs: options.retryMaxMs ?? 5_000 },
    });
  }

  /** Reads the tag list once and starts the periodic refresh. Resolves even when the store is down. */
  start(): Promise<void> {
    return this.directory.start();
  }

  stop(): void {
    this.directory.stop();
  }

  /** Re-reads the tag list: new tags appear, deleted tags go, DB steps update. Single-flight. */
  refreshTags(): Promise<void> {
    return this.directory.refresh();
  }

  private async applyTagList(): Promise<void> {
    if (this.frozen) return;
    const tags = await this.store.listTags();
    if (this.frozen) return;
    this.buffers.applyTagList(tags, this.logger);
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
    this.loader.maybePreload(buffer, segment);
    return segment.base === null ? id : idAt(segment.base, id);
  }

  /**
   * A handle on one tag: `handle.next()` is `nextId(bizTag)` without the per-call lookup, and stays right when the
   * tag is deleted or re-created under it (see SegmentTag). The tag need not be known yet: it is looked up on use.
   */
  tag(bizTag: string): SegmentTag {
    return new SegmentTag(bizTag, this.forHandles);
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
      throw new LeafError('invalid_count', `count must be a whole number from 1 to ${readableLimit(MAX_LEASE_COUNT)}.`);
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
      const segment = await this.loader.lease(buffer, count);
      if (segment.max - segment.start + 1 !== count) {
        throw new LeafError(
          'store_unavailable',
          `The store claimed ${segment.step} IDs of tag "${bizTag}" for a lease of ${count}.`,
        );
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
      appendRun(out, first, first + n - 1, segment.base);
      segment.next = first + n;
      this.loader.maybePreload(buffer, segment);
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
        await this.loader.loaded(buffer);
        if (this.buffers.get(bizTag) !== buffer) throw tagNotFound(bizTag);
      }
    } catch (error) {
      buffer.countFailedRequest();
      throw error;
    }
    return out;
  }

  /** A tag this node does not know may have been created a moment ago through another node (TagDirectory.find). */
  private async lookUpMissingTag(bizTag: string): Promise<TagBuffer> {
    await this.directory.find(
      () => this.buffers.has(bizTag),
      () => tagNotFound(bizTag),
    );
    return this.buffers.get(bizTag) as TagBuffer;
  }

  /**
   * Graceful stop. First, synchronously, nothing more is served, loaded or claimed: every buffer is retired and what
   * its segments had not handed out is noted. Then, with `giveBack`, claims still in flight are awaited, and each
   * tag's latest claim gives back its unused top (see giveBack.ts) by one compare-and-set — all of it within
   * `timeoutMs`; a tag whose claim has not landed by then, or whose row moved, or a store that fails or hangs, gives
   * back nothing (shutdown.ts). Returns what was given back. Does not close the store.
   */
  close(options: CloseOptions): Promise<GivenBack[]> {
    const unused = this.freeze();
    return giveBackUnused({
      store: this.store,
      clock: this.clock,
      logger: this.logger,
      claims: this.claims,
      unused,
      options,
    });
  }

  /** Stops serving at once: every buffer retired, and the IDs its two segments had not handed out, per tag. */
  private freeze(): Map<string, UnusedRun[]> {
    this.frozen = true;
    this.stop();
    const unused = this.buffers.retireAll();
    this.lastTag = '';
    this.lastBuffer = NO_BUFFER;
    return unused;
  }

  /** Tags currently known, sorted. */
  tags(): string[] {
    return [...this.buffers.keys()].sort();
  }

  snapshot(bizTag: string): TagSnapshot | undefined {
    const buffer = this.buffers.get(bizTag);
    return buffer === undefined ? undefined : tagSnapshot(buffer);
  }

  /** IDs issued per tag so far (cheap: derived from segment positions). */
  issuedTotals(): Map<string, number> {
    return this.buffers.issuedTotals();
  }

  status(): { tagsKnown: number; tagsLoaded: number; lastRefreshAt: number | null; lastRefreshError: string | null } {
    return {
      tagsKnown: this.buffers.size,
      tagsLoaded: this.buffers.loadedCount(),
      lastRefreshAt: this.directory.lastRefreshAt,
      lastRefreshError: this.directory.lastRefreshError?.message ?? null,
    };
  }
}
