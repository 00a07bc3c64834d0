/** One tag's double buffer: its state and every transition of it (docs/design.md#segments). */

import { type Id, WIDE_BASE_UNIT, idBigint } from './id';
import type { UnusedRun } from './giveBack';
import { type Semantics, claimedRange } from './semantics';

/** Fraction of a segment consumed before the next one is fetched in the background (Leaf: 10%). */
export const PRELOAD_RATIO = 0.1;

/** A claimed run of IDs as number positions: the IDs, or offsets above `base` past 2^53 (docs/design.md#ids-up-to-2631). */
export interface Segment {
  readonly start: number;
  /** Inclusive. */
  readonly max: number;
  readonly step: number;
  /** Used up when next > max. */
  next: number;
  readonly preloadAt: number;
  readonly base: bigint | null;
  /** The hot path serves `next` while below this, asking nothing (docs/design.md#tag-handles-and-the-hot-path). */
  mark: number;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The segment a claim owns: which IDs depends on the claim's own semantics. */
export function createSegment(maxId: Id, step: number, semantics: Semantics): Segment {
  const { first, last } = claimedRange(idBigint(maxId), step, semantics);
  const base = last <= MAX_SAFE ? null : (first / WIDE_BASE_UNIT) * WIDE_BASE_UNIT;
  const start = Number(base === null ? first : first - base);
  const max = Number(base === null ? last : last - base);
  return segmentOf(start, max, step, base);
}

/** The first and last ID of a segment, exact. */
export function segmentBounds(s: Pick<Segment, 'start' | 'max' | 'base'>): { first: bigint; last: bigint } {
  const base = s.base ?? 0n;
  return { first: base + BigInt(s.start), last: base + BigInt(s.max) };
}

/** Below every position: a wide segment's IDs go the slow way, which adds the base. */
const WIDE_MARK = -1;

/** Every segment is built here, so all share one shape for the hot path. */
function segmentOf(start: number, max: number, step: number, base: bigint | null): Segment {
  const preloadAt = start + Math.ceil(step * PRELOAD_RATIO);
  return { start, max, step, next: start, preloadAt, base, mark: base === null ? preloadAt - 1 : WIDE_MARK };
}

/** No segment: what a buffer holds before its first load and after it is retired. Used up, never written. */
const NO_SEGMENT: Segment = segmentOf(0, -1, 0, null);

export interface SegmentLoadRecord {
  at: number;
  durationMs: number;
  /** The IDs claimed: the engine's step for a segment, the lease's size for a range lease. */
  step: number;
  /** A segment for the double buffer, or a range lease handed to a caller (its size is not the tag's step). */
  purpose: 'segment' | 'lease';
  ok: boolean;
  error?: string;
}

/** Background retry after failed loads: `baseMs` after the first, doubling per failure, at most `maxMs`. */
export interface RetryBackoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** Read directly by the hot path, changed only through its methods. */
export class TagBuffer {
  readonly bizTag: string;
  private _minStep: number;
  private _step: number;
  private _lastLoadAt: number | undefined = undefined;
  /** NO_SEGMENT rather than null: no null check on the hot path. */
  private _current: Segment = NO_SEGMENT;
  private _pending: Segment | null = null;
  private _loading: Promise<void> | null = null;
  private _failures = 0;
  private _retryAfter = 0;
  private _lastError: Error | null = null;
  private issuedBefore = 0;
  private _waits = 0;
  private _failedRequests = 0;
  private _retired = false;
  /** Retired by a restart (the tag starts over), not by a delete: a request waiting on it must not go on. */
  startedOver = false;

  constructor(bizTag: string, dbStep: number) {
    this.bizTag = bizTag;
    this._minStep = dbStep;
    this._step = dbStep;
  }

  /** The row's step: the floor of the dynamic step. */
  get minStep(): number {
    return this._minStep;
  }

  get step(): number {
    return this._step;
  }

  get lastLoadAt(): number | undefined {
    return this._lastLoadAt;
  }

  get current(): Segment | null {
    return this._current === NO_SEGMENT ? null : this._current;
  }

  /** `current` for the hot path: never null (NO_SEGMENT sends every caller the slow way). */
  get head(): Segment {
    return this._current;
  }

  get pending(): Segment | null {
    return this._pending;
  }

  /** The one load in flight, which every waiter shares. */
  get loading(): Promise<void> | null {
    return this._loading;
  }

  get failures(): number {
    return this._failures;
  }

  /** No background preload before this (a backoff after failures). */
  get retryAfter(): number {
    return this._retryAfter;
  }

  get lastError(): Error | null {
    return this._lastError;
  }

  get waits(): number {
    return this._waits;
  }

  get failedRequests(): number {
    return this._failedRequests;
  }

  get retired(): boolean {
    return this._retired;
  }

  setDbStep(dbStep: number): void {
    this._minStep = dbStep;
  }

  beginLoad(load: Promise<void>): void {
    this._loading = load;
    this.placeMark();
  }

  /** `firstLoad`: the store chose the step (the row's own), which becomes the floor too. */
  loadSucceeded(segment: Segment, at: number, firstLoad: boolean): void {
    if (this._retired) return; // claimed after the tag went: a gap, never served
    if (firstLoad) this._minStep = segment.step;
    this._step = segment.step;
    this._lastLoadAt = at;
    this.install(segment);
    this.placeMark();
  }

  loadRecovered(): void {
    this._loading = null;
    this._failures = 0;
    this._retryAfter = 0;
    this._lastError = null;
    this.placeMark();
  }

  /** No background preload until a backoff that doubles with each consecutive failure. */
  loadFailed(error: Error, now: number, backoff: RetryBackoff): void {
    this._loading = null;
    this._failures++;
    this._retryAfter = now + Math.min(backoff.maxMs, backoff.baseMs * 2 ** (this._failures - 1));
    this._lastError = error;
    this.placeMark();
  }

  countWait(): void {
    this._waits++;
  }

  countFailedRequest(): void {
    this._failedRequests++;
  }

  remainingInCurrent(): number {
    const c = this._current;
    return Math.max(0, c.max - c.next + 1);
  }

  available(): number {
    const p = this._pending;
    return this.remainingInCurrent() + (p === null ? 0 : p.max - p.next + 1);
  }

  /** A lease claimed for itself went out: its IDs count as issued. */
  countLeasedDirectly(count: number): void {
    this.issuedBefore += count;
  }

  /** Derived, so the hot path counts nothing. */
  issuedTotal(): number {
    const c = this._current;
    return this.issuedBefore + c.next - c.start;
  }

  /** The tag went: whoever still holds this buffer finds nothing to serve and looks the tag up again. */
  retire(): void {
    this.replaceCurrent(null);
    this._pending = null;
    this._retired = true;
  }

  /** Retires the buffer, answering the IDs it never handed out. */
  retireUnused(): UnusedRun[] {
    const runs: UnusedRun[] = [];
    const current = this.current;
    if (current !== null && current.next <= current.max) runs.push(segmentBounds({ ...current, start: current.next }));
    if (this._pending !== null) runs.push(segmentBounds(this._pending));
    this.retire();
    return runs;
  }

  private install(segment: Segment): void {
    if (this.remainingInCurrent() === 0) this.replaceCurrent(segment);
    else this._pending = segment;
  }

  private replaceCurrent(segment: Segment | null): void {
    const c = this._current;
    this.issuedBefore += c.next - c.start;
    this._current = segment ?? NO_SEGMENT;
  }

  /** Current while it has IDs, else pending (which becomes current); null when both are used up. */
  servingSegment(): Segment | null {
    const c = this._current;
    if (c.next <= c.max) return c;
    const pending = this._pending;
    if (pending === null) return null;
    this.replaceCurrent(pending);
    this._pending = null;
    this.placeMark();
    return pending;
  }

  /** After every change of current, pending or the load: the preload point while nothing is coming, else the end. */
  private placeMark(): void {
    const c = this._current;
    if (c === NO_SEGMENT) return;
    if (c.base !== null) c.mark = WIDE_MARK;
    else c.mark = this._pending !== null || this._loading !== null ? c.max + 1 : c.preloadAt - 1;
  }
}

/** Serves nothing, ever: where a handle or the last-tag cache points until it finds a buffer. */
export const NO_BUFFER: TagBuffer = new TagBuffer('', 1);
NO_BUFFER.retire();
