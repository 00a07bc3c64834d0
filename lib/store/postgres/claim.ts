import type { ClaimNote } from '../../claims/claimNote';
import { type Id, MAX_ID } from '../../segment/id';
import { DEFAULT_SEMANTICS, FLEET_DEFAULT_KEY, type Semantics, storedSemantics } from '../../segment/semantics';
import { exactId } from '../exactId';
import { loggedClaimArgs } from '../rows/claimLog';
import { type Statement, raw } from '../serverExecutor';

/** The claim on PostgreSQL: `leaf_ts_claim(…)`, one round trip (docs/design.md#segments). */
export function claimStatement(bizTag: string, added: number): Statement {
  return raw('SELECT claimed_max_id, claimed_semantics FROM leaf_ts_claim($1, $2, $3, $4, $5)', [
    bizTag,
    added,
    MAX_ID - BigInt(added),
    FLEET_DEFAULT_KEY,
    DEFAULT_SEMANTICS,
  ]);
}

/** The claim and its leaf_claim row: `leaf_ts_claim_logged(…)`, still one round trip (drizzle/postgres/0008). */
export function loggedClaimStatement(bizTag: string, added: number, note: ClaimNote): Statement {
  return raw(
    'SELECT claimed_max_id, claimed_semantics FROM leaf_ts_claim_logged($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)',
    loggedClaimArgs(bizTag, added, note),
  );
}

export interface ClaimRow {
  claimed_max_id: string;
  claimed_semantics: string | null;
}

/** The claim's answer: no row when the tag is missing or its max_id would leave 0..2^63−1 (the caller names which). */
export function decodeClaim(rows: ClaimRow[], bizTag: string): { maxId: Id; semantics: Semantics } | undefined {
  const row = rows[0];
  return row === undefined
    ? undefined
    : {
        maxId: exactId(row.claimed_max_id, bizTag),
        semantics: storedSemantics(row.claimed_semantics) ?? DEFAULT_SEMANTICS,
      };
}
