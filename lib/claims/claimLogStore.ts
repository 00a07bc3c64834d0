import type { Claimer } from './claimNote';
import type { ClaimRow } from './retirement';

/** leaf_claim, read for the time queries and written outside a claim (close rows, pruning). */
export interface ClaimLogStore {
  /** The tag's rows claimed at or before `toMs`, and the close rows written by then. */
  rowsUpTo(bizTag: string, toMs: number): Promise<ClaimRow[]>;
  /**
   * The rows whose positions hold the ID `id` (in every numbering the tag's rows were written in), each with the
   * first later row of its process serving past it and its process's close row: what retires it.
   */
  rowsHolding(bizTag: string, id: bigint): Promise<ClaimRow[]>;
  /** Every row claimed before `beforeMs`, of every tag, and the close rows. */
  rowsBefore(beforeMs: number): Promise<ClaimRow[]>;
  deleteRows(ids: readonly number[]): Promise<number>;
  /** The oldest claim kept of the tag (database ms), or null when none is. */
  oldest(bizTag: string): Promise<number | null>;
  /** The process stopped serving: written once nothing more is handed out. */
  recordClose(claimer: Claimer): Promise<void>;
}
