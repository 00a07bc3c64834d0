/** Each claim checked before anything is served from it (the regression guard), and remembered for the give-back. */
import type { ClaimNote, Claimer } from '../claims/claimNote';
import type { Clock } from '../clock';
import { LeafError, isLeafError, storeUnavailable } from '../errors';
import type { Logger } from '../log';
import { type Segment, type SegmentLoadRecord, type TagBuffer, createSegment, segmentBounds } from './buffer';
import type { LatestClaim, UnusedRun } from './giveBack';
import { type Id, MAX_ID, MAX_ID_TEXT } from './id';
import type { SegmentSource } from './segmentSource';

export type ClaimPurpose = 'segment' | 'lease';

export interface SegmentClaimsOptions {
  store: SegmentSource;
  clock: Clock;
  logger: Logger;
  /** Whether the engine is closed: no claim may start; one landing after is unused whole. */
  closed: () => boolean;
  /** The store says the tag is gone: the engine drops that buffer. */
  tagGone: (buffer: TagBuffer) => void;
  onLoad?: (bizTag: string, record: SegmentLoadRecord) => void;
  /** Who claims: each claim's leaf_claim row names it (lib/claims/); none, no row (tests, formatted periods). */
  claimer?: Claimer;
}

/** The latest claim of a tag, and, for a segment that landed after the engine closed, all of it (never served). */
export type LatestClaimOf = LatestClaim & { unusedWhole: UnusedRun | null };

export function engineClosed(): LeafError {
  return new LeafError('closed', 'This node is stopping: it serves no more IDs.');
}

export class SegmentClaims {
  /** Highest ID ever claimed per tag; outlives a deleted tag, so a reset row is caught. */
  private readonly highWater = new Map<string, bigint>();
  /** The highest ID per tag handed to a range lease's holder: segments below it got their lease tail in the log. */
  private readonly leasedMax = new Map<string, bigint>();
  /** The claim that set highWater, per tag. */
  readonly latest = new Map<string, LatestClaimOf>();
  /** Claims sent to the store and not answered yet, per tag, and all of them. */
  private readonly inFlightByTag = new Map<string, number>();
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly o: SegmentClaimsOptions) {}

  /** Whether `bizTag` has a claim the store has not answered yet (it may turn out to be the latest). */
  inFlight(bizTag: string): boolean {
    return (this.inFlightByTag.get(bizTag) ?? 0) > 0;
  }

  /** Settles once every claim in flight now has. */
  settled(): Promise<unknown> {
    return Promise.allSettled([...this.pending]);
  }

  /**
   * The guard: above every claim finished when this one began (those committed before its UPDATE). `install` puts a
   * segment in its buffer in the same synchronous step that records it as the latest claim, so a stop in between
   * cannot find a latest claim that no buffer holds (whose unused IDs it would then not give back).
   */
  async claim(
    buffer: TagBuffer,
    step: number | undefined,
    purpose: ClaimPurpose,
    install?: (segment: Segment) => void,
  ): Promise<Segment> {
    if (this.o.closed()) throw engineClosed();
    const { clock, logger, onLoad } = this.o;
    const startedAt = clock.now();
    const floor = this.highWater.get(buffer.bizTag);
    try {
      const allocation = await this.track(
        buffer.bizTag,
        this.o.store.allocate(buffer.bizTag, step, this.noteFor(buffer, purpose)),
      );
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
        const unusedWhole = this.o.closed() && purpose === 'segment' ? { first, last } : null;
        this.latest.set(buffer.bizTag, {
          maxId: allocation.maxId,
          step: allocation.step,
          semantics: allocation.semantics,
          purpose,
          unusedWhole,
        });
      }
      install?.(segment);
      const loadedAt = clock.now();
      onLoad?.(buffer.bizTag, {
        at: startedAt,
        durationMs: loadedAt - startedAt,
        step: allocation.step,
        purpose,
        ok: true,
      });
      logger.log('info', purpose === 'lease' ? 'lease_claimed' : 'segment_loaded', {
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
      onLoad?.(buffer.bizTag, {
        at: startedAt,
        durationMs: clock.now() - startedAt,
        step: step ?? buffer.minStep,
        purpose,
        ok: false,
        error: leafError.code,
      });
      logger.log(
        leafError.code === 'segment_regressed' ? 'error' : 'warn',
        purpose === 'lease' ? 'lease_claim_failed' : 'segment_load_failed',
        {
          bizTag: buffer.bizTag,
          code: leafError.code,
          error,
        },
      );
      if (leafError.code === 'tag_not_found') this.o.tagGone(buffer);
      throw leafError;
    }
  }

  /** `position` (of `segment`) went out in a range lease: a holder may hand it out after this process is done. */
  noteLeased(bizTag: string, segment: Segment, position: number): void {
    if (this.o.claimer === undefined) return;
    const id = (segment.base ?? 0n) + BigInt(position);
    if (id > (this.leasedMax.get(bizTag) ?? -1n)) this.leasedMax.set(bizTag, id);
  }

  /** The claim's log row: what this process serves the tag from as it asks (docs/design.md#ids-that-tell-when). */
  private noteFor(buffer: TagBuffer, purpose: ClaimPurpose): ClaimNote | undefined {
    const claimer = this.o.claimer;
    if (claimer === undefined) return undefined;
    const current = buffer.current;
    return {
      ...claimer,
      kind: purpose,
      servingFirst: current === null ? null : segmentBounds(current).first,
      leasedMax: this.leasedMax.get(buffer.bizTag) ?? -1n,
    };
  }

  /** `claim` while the store answers, counted per tag. */
  private track<T>(bizTag: string, claim: Promise<T>): Promise<T> {
    this.inFlightByTag.set(bizTag, (this.inFlightByTag.get(bizTag) ?? 0) + 1);
    this.pending.add(claim);
    const settled = (): void => {
      this.inFlightByTag.set(bizTag, (this.inFlightByTag.get(bizTag) ?? 1) - 1);
      this.pending.delete(claim);
    };
    claim.then(settled, settled);
    return claim;
  }
}

/** An allocation the engine can serve from: max_id an exact integer within BIGINT, a step of at least one. */
function usableAllocation(maxId: Id, step: number): boolean {
  if (!Number.isSafeInteger(step) || step < 1) return false;
  return typeof maxId === 'bigint' ? maxId <= MAX_ID : Number.isSafeInteger(maxId);
}
