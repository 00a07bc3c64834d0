import type { Claimer } from '../claims/claimNote';
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
  /** Tag-list re-read (Leaf: 60 s); 0: none. */
  refreshIntervalMs?: number;
  /** How long a request that finds both segments empty waits for the load. */
  loadWaitMs?: number;
  /** An unknown tag re-reads the list at most this often: unknown tags cannot flood the store. */
  missRefreshMinIntervalMs?: number;
  /** Backoff after a failed background load (a waiting request retries at once). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Every segment load, ok or failed (metrics, the load log); never per ID. */
  onLoad?: (bizTag: string, record: SegmentLoadRecord) => void;
  /** Who claims, for the claim log (lib/claims/); none: claims are not logged. */
  claimer?: Claimer;
}

/** Leaf's segment mode: per tag a double buffer claimed from the store, one write per segment (docs/design.md#segments). */
export class SegmentEngine {
  private readonly clock: Clock;
  private readonly buffers = new TagBuffers();
  private readonly directory: TagDirectory;
  private readonly claims: SegmentClaims;
  private readonly loader: SegmentLoader;
  private readonly store: SegmentSource;
  private readonly logger: Logger;
  /** Closed: nothing is served, loaded or claimed any more. */
  private frozen = false;
  /** The tag `nextId` served last: a caller on one tag skips the map lookup. */
  private lastTag = '';
  private lastBuffer: TagBuffer = NO_BUFFER;
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
      claimer: options.claimer,
    });
    this.loader = new SegmentLoader({
      claims: this.claims,
      clock: this.clock,
      loadWaitMs: options.loadWaitMs ?? 1_000,
      retryBackoff: { baseMs: options.retryBaseMs ?? 100, maxMs: options.retryMaxMs ?? 5_000 },
    });
  }

  /** Resolves even when the store is down. */
  start(): Promise<void> {
    return this.directory.start();
  }

  stop(): void {
    this.directory.stop();
  }

  /** Single-flight: new tags appear, deleted ones go, steps update. */
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
   * The tag starts over on an empty buffer: what it serves from now on comes from segments claimed from now on (a
   * strict tag's new owner, a tag turned strict — lib/ordered). The segments it held are a gap.
   */
  restart(bizTag: string): void {
    const buffer = this.buffers.get(bizTag);
    if (buffer === undefined || this.frozen) return;
    this.buffers.renew(buffer);
    this.lastTag = '';
    this.lastBuffer = NO_BUFFER;
  }

  /** Synchronously when a buffer can serve it (no promise allocated), else a promise; a LeafError either way. */
  nextId(bizTag: string): Id | Promise<Id> {
    const buffer = bizTag === this.lastTag ? this.lastBuffer : this.lookUpForNext(bizTag);
    // The hot path: below the mark there is nothing to decide.
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
    // The wait may end on another buffer (a re-created tag). '' only ever with NO_BUFFER.
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

  /** An ID at or past the mark: a segment switch, the preload, a wide segment's base; null when both are used up. */
  private serveSlowly(buffer: TagBuffer): Id | null {
    const segment = buffer.servingSegment();
    if (segment === null) return null;
    const id = segment.next++;
    this.loader.maybePreload(buffer, segment);
    return segment.base === null ? id : idAt(segment.base, id);
  }

  /** `nextId` without the per-call lookup, right through a delete or re-create (segmentTag.ts). */
  tag(bizTag: string): SegmentTag {
    return new SegmentTag(bizTag, this.forHandles);
  }

  takeIds(bizTag: string, count: number): Id[] | Promise<Id[]> {
    const ranges = this.takeRanges(bizTag, count);
    return ranges instanceof Promise ? ranges.then(expandRanges) : expandRanges(ranges);
  }

  /**
   * `count` IDs as inclusive ranges, one per segment touched: cheapest for the HTTP batch route. `held`: the caller
   * holds them like a range lease (an opaque tag's batch for @leaf-ts/client), which the claim log must know.
   */
  takeRanges(bizTag: string, count: number, held = false): IdRanges | Promise<IdRanges> {
    if (!Number.isSafeInteger(count) || count < 1) {
      throw new LeafError('invalid_count', 'count must be a whole number of at least 1.');
    }
    const out = newRanges();
    const buffer = this.buffers.get(bizTag);
    if (buffer !== undefined && this.fill(buffer, count, out, held)) return out;
    return this.takeSlow(bizTag, count, out, held);
  }

  /** Exactly `count` IDs as runs; one larger than a segment is claimed for itself (docs/design.md#range-leases). */
  leaseRanges(bizTag: string, count: number): IdRanges | Promise<IdRanges> {
    if (!Number.isSafeInteger(count) || count < 1 || count > MAX_LEASE_COUNT) {
      throw new LeafError('invalid_count', `count must be a whole number from 1 to ${readableLimit(MAX_LEASE_COUNT)}.`);
    }
    const buffer = this.buffers.get(bizTag);
    if (buffer !== undefined && buffer.available() >= count) {
      const out = newRanges();
      this.fill(buffer, count, out, true);
      return out;
    }
    return this.leaseSlow(bizTag, count);
  }

  private async leaseSlow(bizTag: string, count: number): Promise<IdRanges> {
    if (this.frozen) throw engineClosed();
    const buffer = this.buffers.get(bizTag) ?? (await this.lookUpMissingTag(bizTag));
    if (count <= buffer.available() || count <= buffer.step) return this.takeSlow(bizTag, count, newRanges(), true);
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

  /** Whether `out` got to `count` from the buffer. */
  private fill(buffer: TagBuffer, count: number, out: IdRanges, held = false): boolean {
    while (out.count < count) {
      const segment = buffer.servingSegment();
      if (segment === null) return false;
      const n = Math.min(count - out.count, segment.max - segment.next + 1);
      const first = segment.next;
      appendRun(out, first, first + n - 1, segment.base);
      segment.next = first + n;
      // Before the preload: a claim it sends may be the one that says this segment is done, and must know it leased.
      if (held) this.claims.noteLeased(buffer.bizTag, segment, first + n - 1);
      this.loader.maybePreload(buffer, segment);
    }
    return true;
  }

  private async takeSlow(bizTag: string, count: number, out: IdRanges, held = false): Promise<IdRanges> {
    if (this.frozen) throw engineClosed();
    let buffer = this.buffers.get(bizTag);
    if (buffer === undefined) buffer = await this.lookUpMissingTag(bizTag);
    try {
      while (!this.fill(buffer, count, out, held)) {
        await this.loader.loaded(buffer);
        const now = this.buffers.get(bizTag);
        if (now === buffer) continue;
        // The tag started over (restart): this request ends here, retryable, and claims nothing for the new buffer —
        // a segment claimed for it would outlive the change (docs/design.md#ordered-tags). Re-created meanwhile: go
        // on with the new buffer. Gone: not found.
        if (buffer.startedOver) throw startedOver(bizTag);
        if (now === undefined) throw tagNotFound(bizTag);
        buffer = now;
      }
    } catch (error) {
      buffer.countFailedRequest();
      throw error;
    }
    return out;
  }

  /** A tag unknown here may have been created a moment ago through another node. */
  private async lookUpMissingTag(bizTag: string): Promise<TagBuffer> {
    await this.directory.find(
      () => this.buffers.has(bizTag),
      () => tagNotFound(bizTag),
    );
    return this.buffers.get(bizTag) as TagBuffer;
  }

  /** Stops serving at once, then gives back the unused top of each tag's latest claim (docs/operations.md#give-back-restarts-that-skip-no-ids). */
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

  /** Every buffer retired; what its segments had not handed out, per tag. */
  private freeze(): Map<string, UnusedRun[]> {
    this.frozen = true;
    this.stop();
    const unused = this.buffers.retireAll();
    this.lastTag = '';
    this.lastBuffer = NO_BUFFER;
    return unused;
  }

  tags(): string[] {
    return [...this.buffers.keys()].sort();
  }

  snapshot(bizTag: string): TagSnapshot | undefined {
    const buffer = this.buffers.get(bizTag);
    return buffer === undefined ? undefined : tagSnapshot(buffer);
  }

  /** Derived from segment positions. */
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

/**
 * A request that waited across its tag's restart, which only a change of the tag's ordering or owner makes
 * (lib/ordered): `not_owner` as docs/api.md names it — its IDs are a gap; retried on whatever serves the tag now.
 */
function startedOver(bizTag: string): LeafError {
  return new LeafError(
    'not_owner',
    `Tag "${bizTag}" started over while this request waited (its ordering or owner changed): nothing was handed out; try again.`,
    { retryAfterSeconds: 1 },
  );
}
