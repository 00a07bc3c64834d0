/** Loading a tag's next segment: preload, the shared load, bounded waits, backoff, a lease's own claim. */
import type { Clock } from '../clock';
import { TIMED_OUT, within } from '../deadline';
import { LeafError, isLeafError, storeUnavailable } from '../errors';
import type { RetryBackoff, Segment, TagBuffer } from './buffer';
import type { SegmentClaims } from './claims';
import { nextStep } from './step';

export interface SegmentLoaderOptions {
  claims: SegmentClaims;
  clock: Clock;
  /** How long a request that finds both segments empty waits for the in-flight load. */
  loadWaitMs: number;
  retryBackoff: RetryBackoff;
}

export class SegmentLoader {
  constructor(private readonly o: SegmentLoaderOptions) {}

  /** Starts the next segment's load once `segment` passed its preload point, unless one is there or backing off. */
  maybePreload(buffer: TagBuffer, segment: Segment): void {
    if (
      segment.next >= segment.preloadAt &&
      buffer.pending === null &&
      buffer.loading === null &&
      this.o.clock.now() >= buffer.retryAfter
    ) {
      void this.startLoad(buffer);
    }
  }

  /** Waits (bounded) for the load in flight, or starts one: both segments are used up. */
  loaded(buffer: TagBuffer): Promise<void> {
    buffer.countWait();
    return this.bounded(buffer.loading ?? this.startLoad(buffer), () => {
      return new LeafError(
        'segment_unavailable',
        `Both segments of tag "${buffer.bizTag}" are used up and the next one did not arrive within ${this.o.loadWaitMs} ms.`,
      );
    });
  }

  /** A lease's own claim of exactly `count` IDs, bounded like a load. */
  lease(buffer: TagBuffer, count: number): Promise<Segment> {
    return this.bounded(this.o.claims.claim(buffer, count, 'lease'), () => {
      return new LeafError(
        'segment_unavailable',
        `A lease of ${count} IDs of tag "${buffer.bizTag}" was not claimed within ${this.o.loadWaitMs} ms; if it lands later, its IDs are skipped.`,
      );
    });
  }

  /** Starts the one load of `buffer`'s next segment. The returned promise rejects on failure; nothing is unhandled. */
  private startLoad(buffer: TagBuffer): Promise<void> {
    const load = this.load(buffer);
    buffer.beginLoad(load);
    load.then(
      () => buffer.loadRecovered(),
      (error: Error) => buffer.loadFailed(error, this.o.clock.now(), this.o.retryBackoff),
    );
    return load;
  }

  private async load(buffer: TagBuffer): Promise<void> {
    const step =
      buffer.lastLoadAt === undefined
        ? undefined // the first load takes the DB's step
        : nextStep({
            step: buffer.step,
            minStep: buffer.minStep,
            sinceLastLoadMs: this.o.clock.now() - buffer.lastLoadAt,
          });
    await this.o.claims.claim(buffer, step, 'segment', (segment) =>
      buffer.loadSucceeded(segment, this.o.clock.now(), step === undefined),
    );
  }

  /** `work`, or `timedOut()` thrown once `loadWaitMs` has passed; a failure that is not a LeafError is the store's. */
  private async bounded<T>(work: Promise<T>, timedOut: () => LeafError): Promise<T> {
    const outcome = await within(this.o.clock, this.o.loadWaitMs, work).catch((error: unknown) => {
      throw isLeafError(error) ? error : storeUnavailable(error);
    });
    if (outcome === TIMED_OUT) throw timedOut();
    return outcome;
  }
}
