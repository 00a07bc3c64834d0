/**
 * One tag's double buffer. Pure state plus the transitions that belong to it; the engine decides when to load.
 * JS runs one request at a time, so no locks: the only concurrency is the in-flight load promise.
 */

import { type Id, WIDE_BASE_UNIT, idBigint } from './id';
import type { UnusedRun } from './giveBack';
import { type Semantics, claimedRange } from './semantics';

/** Fraction of a segment consumed before the next one is fetched in the background (Leaf: 10%). */
export const PRELOAD_RATIO = 0.1;

/**
 * A claimed run of IDs. Its positions are JS numbers: the IDs themselves on an ordinary segment (`base` null), so
 * serving is one increment; on a wide segment — one whose IDs pass 2^53 — offsets above `base`, a multiple of
 * WIDE_BASE_UNIT, so they stay exact numbers too (lib/segment/id.ts).
 */
export interface Segment {
  /** First position of the segment. */
  readonly start: number;
  /** Last position of the segment (inclusive). */
  readonly max: number;
  readonly step: number;
  /** Next position to hand out; the segment is used up when next > max. */
  next: number;
  /** When next reaches this, the following segment is fetched. */
  readonly preloadAt: number;
  /** null: positions are IDs; else each ID is base + position. */
  readonly base: bigint | null;
  /**
   * The hot path hands out `next` while it is below this, asking nothing else. While no next segment is loading or
   * ready: preloadAt − 1, so the ID that brings `next` to the preload point goes the slow way, which starts the load
   * (as the check after every ID did); once one is: max + 1. Set only by the TagBuffer holding the segment.
   */
  mark: number;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The segment a claim owns: which IDs depends on the claim's own semantics (see semantics.ts). */
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

/**
 * A wide segment's mark: below every position, so its IDs always go the slow way, which adds the base (the
 * ordinary hot path stays one comparison and never meets a bigint).
 */
const WIDE_MARK = -1;

/** Every segment is built here, so all share one shape (the hot path reads them without a shape check). */
function segmentOf(start: number, max: number, step: number, base: bigint | null): Segment {
  const preloadAt = start + Math.ceil(step * PRELOAD_RATIO);
  return { start, max, step, next: start, preloadAt, base, mark: base === null ? preloadAt - 1 : WIDE_MARK };
}

/** No segment: what a buffer holds before its first load and after it is retired. Used up, never written. */
const NO_SEGMENT: Segment = segmentOf(0, -1, 0, null);

export interface SegmentLoadRecord {
  at: number;
  durationMs: number;
  step: number;
  ok: boolean;
  error?: string;
}

/** Background retry after failed loads: `baseMs` after the first, doubling per failure, at most `maxMs`. */
export interface RetryBackoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * Fields are read directly (the hot path reads `current`), but change only through the methods below, so every
 * transition of a tag's state is in one place.
 */
export class TagBuffer {
  readonly bizTag: string;
  private _minStep: number;
  private _step: number;
  private _lastLoadAt: number | undefined = undefined;
  /** NO_SEGMENT rather than null, so the hot path's read of it needs no null or shape check. */
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

  constructor(bizTag: string, dbStep: number) {
    this.bizTag = bizTag;
    this._minStep = dbStep;
    this._step = dbStep;
  }

  /** The DB's step: first load's step and the floor of the dynamic step. */
  get minStep(): number {
    return this._minStep;
  }

  /** Step of the most recently loaded segment. */
  get step(): number {
    return this._step;
  }

  /** Clock time of the last successful load; undefined before the first. */
  get lastLoadAt(): number | undefined {
    return this._lastLoadAt;
  }

  /** The segment IDs are served from; its `next` advances on the hot path. */
  get current(): Segment | null {
    return this._current === NO_SEGMENT ? null : this._current;
  }

  /**
   * The hot path's read of `current`: the current segment, or an empty one (NO_SEGMENT, whose mark sends every
   * caller the slow way) — never null.
   */
  get head(): Segment {
    return this._current;
  }

  /** The next segment, fetched ahead; null until ready. */
  get pending(): Segment | null {
    return this._pending;
  }

  /** The one load in flight, shared by every waiter. */
  get loading(): Promise<void> | null {
    return this._loading;
  }

  /** Consecutive failed loads, for background retry backoff. */
  get failures(): number {
    return this._failures;
  }

  /** No background preload before this clock time (after a failure). */
  get retryAfter(): number {
    return this._retryAfter;
  }

  get lastError(): Error | null {
    return this._lastError;
  }

  /** Requests that found both segments empty and had to await a load. */
  get waits(): number {
    return this._waits;
  }

  /** Requests that failed (store down, load too slow, …). */
  get failedRequests(): number {
    return this._failedRequests;
  }

  /** The engine let go of this buffer (the tag was deleted): it serves nothing any more. */
  get retired(): boolean {
    return this._retired;
  }

  /** The tag list says the row's step is now `dbStep`: the floor of later dynamic steps. */
  setDbStep(dbStep: number): void {
    this._minStep = dbStep;
  }

  /** `load` is now the one load in flight. */
  beginLoad(load: Promise<void>): void {
    this._loading = load;
    this.placeMark();
  }

  /**
   * A load claimed `segment` at clock time `at`: install it, and clear the failure streak. `firstLoad` means the
   * store chose the step (the row's own), which then becomes the floor too.
   */
  loadSucceeded(segment: Segment, at: number, firstLoad: boolean): void {
    if (this._retired) return; // claimed after the tag went: a gap, never served
    if (firstLoad) this._minStep = segment.step;
    this._step = segment.step;
    this._lastLoadAt = at;
    this.install(segment);
    this.placeMark();
  }

  /** The in-flight load landed: background loads may run at once again. */
  loadRecovered(): void {
    this._loading = null;
    this._failures = 0;
    this._retryAfter = 0;
    this._lastError = null;
    this.placeMark();
  }

  /**
   * The in-flight load failed at clock time `now`: no background preload until a backoff that doubles with each
   * consecutive failure has passed.
   */
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

  /** Remaining IDs in the current segment. */
  remainingInCurrent(): number {
    const c = this._current;
    return Math.max(0, c.max - c.next + 1);
  }

  /** IDs the two segments still hold. */
  available(): number {
    const p = this._pending;
    return this.remainingInCurrent() + (p === null ? 0 : p.max - p.next + 1);
  }

  /** `count` IDs went out in a lease claimed for it alone (never through the two segments): they count as issued. */
  countLeasedDirectly(count: number): void {
    this.issuedBefore += count;
  }

  /** IDs issued by this tag so far. Derived, so the hot path counts nothing. */
  issuedTotal(): number {
    const c = this._current;
    return this.issuedBefore + c.next - c.start;
  }

  /**
   * The engine dropped this buffer (the tag was deleted or the store said it is gone). Its segments go, so anything
   * still holding the buffer — a tag handle, the engine's last-tag cache — finds nothing to serve and looks the tag
   * up again, without a check per ID; a load landing later is not installed. What it issued stays counted.
   */
  retire(): void {
    this.replaceCurrent(null);
    this._pending = null;
    this._retired = true;
  }

  /** Retires the buffer (see retire) and says which of its IDs it never handed out: the rest of current, pending whole. */
  retireUnused(): UnusedRun[] {
    const runs: UnusedRun[] = [];
    const current = this.current;
    if (current !== null && current.next <= current.max) runs.push(segmentBounds({ ...current, start: current.next }));
    if (this._pending !== null) runs.push(segmentBounds(this._pending));
    this.retire();
    return runs;
  }

  /** Installs a freshly loaded segment: as current when there is nothing left to serve, else as pending. */
  private install(segment: Segment): void {
    if (this.remainingInCurrent() === 0) this.replaceCurrent(segment);
    else this._pending = segment;
  }

  private replaceCurrent(segment: Segment | null): void {
    const c = this._current;
    this.issuedBefore += c.next - c.start;
    this._current = segment ?? NO_SEGMENT;
  }

  /**
   * The segment to serve from: the current one while it has IDs left, else the pending one, which becomes
   * current. null when both are used up.
   */
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

  /**
   * Where the hot path must stop and ask again (see Segment.mark): at the preload point while nothing is loading and
   * no next segment is ready — past it, every ID asks, as the engine's preload rule needs — else at the end. Run after
   * every change of the current segment, the pending one or the load in flight, so the mark always matches them.
   */
  private placeMark(): void {
    const c = this._current;
    if (c === NO_SEGMENT) return;
    if (c.base !== null) c.mark = WIDE_MARK;
    else c.mark = this._pending !== null || this._loading !== null ? c.max + 1 : c.preloadAt - 1;
  }
}

/** Serves nothing, ever: where a tag handle or the engine's last-tag cache points until it finds a tag's buffer. */
export const NO_BUFFER: TagBuffer = new TagBuffer('', 1);
NO_BUFFER.retire();
