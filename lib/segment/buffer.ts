/**
 * One tag's double buffer. Pure state plus the transitions that belong to it; the engine decides when to load.
 * JS runs one request at a time, so no locks: the only concurrency is the in-flight load promise.
 */

/** Fraction of a segment consumed before the next one is fetched in the background (Leaf: 10%). */
export const PRELOAD_RATIO = 0.1;

export interface Segment {
  /** First ID of the segment. */
  readonly start: number;
  /** Last ID of the segment (inclusive). */
  readonly max: number;
  readonly step: number;
  /** Next ID to hand out; the segment is used up when next > max. */
  next: number;
  /** When next reaches this, the following segment is fetched. */
  readonly preloadAt: number;
}

export function createSegment(maxId: number, step: number): Segment {
  const start = maxId - step + 1;
  return { start, max: maxId, step, next: start, preloadAt: start + Math.ceil(step * PRELOAD_RATIO) };
}

export interface SegmentLoadRecord {
  at: number;
  durationMs: number;
  step: number;
  ok: boolean;
  error?: string;
}

export class TagBuffer {
  readonly bizTag: string;
  /** The DB's step: first load's step and the floor of the dynamic step. */
  minStep: number;
  /** Step of the most recently loaded segment. */
  step: number;
  /** Clock time of the last successful load; undefined before the first. */
  lastLoadAt: number | undefined = undefined;
  current: Segment | null = null;
  /** The next segment, fetched ahead; null until ready. */
  pending: Segment | null = null;
  /** The one load in flight, shared by every waiter. */
  loading: Promise<void> | null = null;
  /** Consecutive failed loads, for background retry backoff. */
  failures = 0;
  /** No background preload before this clock time (after a failure). */
  retryAfter = 0;
  lastError: Error | null = null;
  /** IDs handed out from segments already switched away from; with the current one's, the total issued. */
  issuedBefore = 0;
  /** Requests that found both segments empty and had to await a load. */
  waits = 0;
  /** Requests that failed (store down, load too slow, …). */
  failedRequests = 0;

  constructor(bizTag: string, dbStep: number) {
    this.bizTag = bizTag;
    this.minStep = dbStep;
    this.step = dbStep;
  }

  /** Remaining IDs in the current segment. */
  remainingInCurrent(): number {
    const c = this.current;
    return c === null ? 0 : Math.max(0, c.max - c.next + 1);
  }

  /** IDs issued by this buffer so far. Derived, so the hot path counts nothing. */
  issuedTotal(): number {
    const c = this.current;
    return this.issuedBefore + (c === null ? 0 : c.next - c.start);
  }

  /** Installs a freshly loaded segment: as current when there is nothing left to serve, else as pending. */
  install(segment: Segment): void {
    if (this.remainingInCurrent() === 0) this.replaceCurrent(segment);
    else this.pending = segment;
  }

  private replaceCurrent(segment: Segment): void {
    const c = this.current;
    if (c !== null) this.issuedBefore += c.next - c.start;
    this.current = segment;
  }

  /**
   * Makes `current` a segment with IDs left, switching to the pending one if needed.
   * Returns false when both are used up.
   */
  ensureCurrent(): boolean {
    if (this.remainingInCurrent() > 0) return true;
    if (this.pending === null) return false;
    this.replaceCurrent(this.pending);
    this.pending = null;
    return true;
  }
}
