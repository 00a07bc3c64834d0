/** What the segment engine needs from a database. Both dialects implement it; tests fake it. */
export interface TagInfo {
  bizTag: string;
  /** The step stored in the row: the first load's step and the floor for dynamic steps. */
  step: number;
}

export interface TagRow extends TagInfo {
  maxId: number;
  description: string | null;
  updateTime: Date;
}

export interface Allocation {
  bizTag: string;
  /** max_id after the claim: the segment is [maxId - step + 1, maxId]. */
  maxId: number;
  /** The step that was added, i.e. the size of the claimed segment. */
  step: number;
}

export interface NewTag {
  bizTag: string;
  step: number;
  /** Highest ID already used by an older scheme; the first segment starts above it. Default 1, as Leaf. */
  maxId?: number;
  description?: string | null;
}

export interface SegmentStore {
  readonly dialect: 'sqlite' | 'mysql';
  listTags(): Promise<TagInfo[]>;
  getTag(bizTag: string): Promise<TagRow | undefined>;
  /**
   * Atomically claims the next segment of `bizTag`: max_id grows by `step` (the row's own step when omitted).
   * Two callers, in any processes, never receive overlapping segments.
   * Throws LeafError `tag_not_found`, `id_space_exhausted` (max_id would pass 2^53-1) or `store_unavailable`.
   */
  allocate(bizTag: string, step?: number): Promise<Allocation>;
  createTag(tag: NewTag): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Segment values are JS numbers on the hot path: max_id may never pass this, or precision is lost. */
export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;
