/** The claim log's three questions, over its store (docs/design.md#ids-that-tell-when). */
import type { ClaimLogStore } from './claimLogStore';
import { holdsId } from './numbering';
import { type LoggedClaim, liveBetween, prunable, retire } from './retirement';

/** Claims made by `toMs` whose IDs can have been handed out at or after `fromMs`. */
export async function claimsBetween(
  log: Pick<ClaimLogStore, 'rowsUpTo'>,
  bizTag: string,
  fromMs: number,
  toMs: number,
): Promise<LoggedClaim[]> {
  return liveBetween(retire(await log.rowsUpTo(bizTag, toMs)), fromMs, toMs);
}

/** The claims whose IDs include `id`, each with its retirement. */
export async function claimsHolding(
  log: Pick<ClaimLogStore, 'rowsHolding'>,
  bizTag: string,
  id: bigint,
): Promise<LoggedClaim[]> {
  return retire(await log.rowsHolding(bizTag, id))
    .filter((c) => holdsId(c, id))
    .sort((a, b) => a.claimedAt - b.claimedAt);
}

/** Deletes the rows older than `beforeMs` that can serve nothing any more; answers how many. */
export async function pruneClaims(
  log: Pick<ClaimLogStore, 'rowsBefore' | 'deleteRows'>,
  beforeMs: number,
): Promise<number> {
  const ids = prunable(await log.rowsBefore(beforeMs), beforeMs);
  return ids.length === 0 ? 0 : log.deleteRows(ids);
}
