import type { Id } from './id';
import type { Semantics } from './semantics';

/** What the segment engine needs from a database (its port): the tag list and the atomic claim. Tests fake it. */
export interface TagInfo {
  bizTag: string;
  /** The step stored in the row: the first load's step and the floor for dynamic steps. */
  step: number;
}

export interface Allocation {
  bizTag: string;
  /** max_id after the claim, exact (a bigint above 2^53−1). */
  maxId: Id;
  /** The step that was added, i.e. the size of the claimed segment. */
  step: number;
  /**
   * The tag's effective semantics, read in the claim's own transaction after its UPDATE: `leaf-ts` owns
   * [maxId - step + 1, maxId], `leaf` owns [maxId - step, maxId - 1] (lib/segment/semantics.ts).
   */
  semantics: Semantics;
}

export interface SegmentSource {
  listTags(): Promise<TagInfo[]>;
  /**
   * Atomically claims the next segment of `bizTag`: max_id grows by `step` (the row's own step when omitted).
   * Two callers, in any processes, never receive overlapping segments.
   * Throws LeafError `tag_not_found`, `id_space_exhausted` (max_id would pass 2^63−1) or `store_unavailable`.
   */
  allocate(bizTag: string, step?: number): Promise<Allocation>;
  /**
   * Gives back the unused top of this node's latest claim (graceful stop): one compare-and-set, `max_id` from
   * `claimedMaxId` (what this node's claim left) down to `newMaxId`. True when the row still held `claimedMaxId`;
   * false when anything moved it since (another claim, a raise, a semantics switch, a delete): nothing given back.
   * Optional: a source without it gives nothing back.
   */
  giveBack?(bizTag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean>;
}
