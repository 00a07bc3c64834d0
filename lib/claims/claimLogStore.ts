import type { ClaimKind, Claimer } from './claimNote';

/** A leaf_claim row as read back, with when its claimer was last known to serve it. */
export interface LoggedClaim {
  bizTag: string;
  /** Positions in the claim's numbering (`region` of `regions`): the IDs are position × regions + region. */
  first: bigint;
  last: bigint;
  /** Database ms. */
  claimedAt: number;
  kind: ClaimKind;
  claimer: string;
  instance: string;
  /** How long after `retiredAt` a lease's holder may still hand its IDs out: 0 when none of them was leased. */
  tailMs: number;
  region: number;
  regions: number;
  /** When its claimer is known to have stopped serving it (database ms); null: not known to have stopped. */
  retiredAt: number | null;
}

/** leaf_claim, read for the time queries and written outside a claim (close rows, pruning). */
export interface ClaimLogStore {
  /** Claims made by `toMs` whose IDs can have been handed out at or after `fromMs`. */
  liveBetween(bizTag: string, fromMs: number, toMs: number): Promise<LoggedClaim[]>;
  /** Claims whose positions include the ID `id`, in every numbering the tag's rows were written in. */
  containing(bizTag: string, id: bigint): Promise<LoggedClaim[]>;
  /** The oldest claim kept of the tag (database ms), or null when none is. */
  oldest(bizTag: string): Promise<number | null>;
  /** The process stopped serving: written once nothing more is handed out. */
  recordClose(claimer: Claimer): Promise<void>;
  /** Deletes rows older than `beforeMs` that can serve nothing any more; answers how many. */
  prune(beforeMs: number): Promise<number>;
}
