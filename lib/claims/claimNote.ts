/**
 * What a claim's log row says beyond the claim itself (docs/design.md#ids-that-tell-when): who claimed, what it was
 * serving then, and how long after it stops serving a segment its IDs may still be handed out by a lease's holder.
 */
export type ClaimKind = 'segment' | 'lease';

/** The process that claims: fixed for its life. */
export interface Claimer {
  /** What the console shows: a node id, or an embedded process's name. */
  claimer: string;
  /** Unique per process start: the log's retirement rule matches a process's own later rows only. */
  instance: string;
  /** How long a lease taken from this process's segments may be used after it (0: it grants no leases). */
  tailMs: number;
  region: number;
  regions: number;
}

export interface ClaimNote extends Claimer {
  kind: ClaimKind;
  /**
   * The first position of the segment this process served the tag from when it sent the claim: every earlier
   * segment of its own whose last position is below it is served no more. null: unknown, retires nothing.
   */
  servingFirst: bigint | null;
  /**
   * The highest position of the tag this process has handed to a range lease's holder so far (−1: none). A segment
   * this row retires whose first position is above it was never leased from: its IDs end with it, no tail.
   */
  leasedMax: bigint;
}

/** The claim's columns as written: positions as decimal text or bigint, exact. */
export interface ClaimLogValues {
  bizTag: string;
  first: bigint;
  last: bigint;
  note: ClaimNote;
}

/** `serving_first` of a process's `close` row: above every position, so it retires every segment of the process. */
export const CLOSE_SERVING_FIRST = 2n ** 63n - 1n;
/** A close row names no tag: the retirement rule matches it for every tag. */
export const CLOSE_TAG = '';

/**
 * Database clocks are read in whole ms, cut down: a recorded retirement may be up to this much before the moment it
 * marks, so every end of a window is this much later.
 */
export const CLOCK_GRAIN_MS = 1;
