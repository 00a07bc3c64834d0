/**
 * The seams run's history (tools/chaos/seams): every answer every client got and every operation the scheduler
 * ran, on one monotonic clock (this process's performance.now()), and the moments the run saw each change to strict
 * complete. The checker (checker.ts) judges nothing but this.
 */

/** How an ID was asked for: a node's route, or a package in a service (packageApp.ts). */
export type IdPath =
  'segment' | 'batch' | 'leaf' | 'range' | 'owner' | 'runs' | 'formatted' | 'snowflake' | 'client' | 'embedded';

export interface Answer {
  region: number;
  path: IdPath;
  /** The tag (segment and formatted paths); '' for snowflake. */
  tag: string;
  /** When the request that got this answer left, and when the answer came (ms, one clock for the whole run). */
  sentAt: number;
  receivedAt: number;
  /** Decimal strings; formatted IDs as they are. */
  ids: string[];
  /** Who answered: a node's name, or the package service's. */
  via: string;
}

export type OpKind =
  | 'create'
  | 'delete'
  | 'recreate'
  | 'step'
  | 'raise'
  | 'semantics'
  | 'strict'
  | 'none'
  | 'kill'
  | 'pause'
  | 'term'
  | 'outage'
  | 'slow'
  | 'rotate';

export interface Op {
  kind: OpKind;
  region: number;
  /** A tag for admin operations; a process or 'database' for faults. */
  target: string;
  startAt: number;
  endAt: number;
  /** What happened, for the schedule print: `201`, `paused 2.4 s`, `refused 409 …`. */
  outcome: string;
}

/** A change to strict the run saw complete: the tag view asked at `askedAt` said so, its answer came at `seenAt`. */
export interface Completion {
  region: number;
  tag: string;
  /** The tag view's `strictSince` (identifies the change), or the legacy estimate's label. */
  strictSince: string;
  askedAt: number;
  seenAt: number;
}

export interface History {
  seed: number;
  answers: Answer[];
  ops: Op[];
  completions: Completion[];
  /** Ends every window still open. */
  endedAt: number;
  /** The formatted tags' patterns, by name: each formatted ID must match (a regular expression source). */
  formats: Record<string, string>;
  /** The region count: a segment ID of region r is r modulo it. */
  regions: number;
  /**
   * Opaque tags and the keys their IDs are permuted with: the checker reads each ID back to its sequence number under
   * the key its tag records (`keyIds`, by `region tag`; `key` for a tag not found there).
   */
  opaque?: { key: string; tags: string[]; keys?: string[]; keyIds?: Record<string, string> };
}
