import type { Id } from './id';
import type { Semantics } from './semantics';
import type { ClaimNote } from '../claims/claimNote';

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
  /** Read in the claim's own transaction: `leaf-ts` owns [maxId − step + 1, maxId], `leaf` [maxId − step, maxId − 1]. */
  semantics: Semantics;
}

export interface SegmentSource {
  listTags(): Promise<TagInfo[]>;
  /**
   * max_id grows by `step` (the row's when omitted), atomically: two callers anywhere never overlap. With `note`, the
   * claim's leaf_claim row is written in the same transaction (lib/claims/).
   */
  allocate(bizTag: string, step?: number, note?: ClaimNote): Promise<Allocation>;
  /** One compare-and-set from `claimedMaxId` down to `newMaxId`; false when anything moved the row since. */
  giveBack?(bizTag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean>;
}
