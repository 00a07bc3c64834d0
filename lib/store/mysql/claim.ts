import type { ClaimNote } from '../../claims/claimNote';
import { type Id, MAX_ID } from '../../segment/id';
import { DEFAULT_SEMANTICS, FLEET_DEFAULT_KEY, type Semantics } from '../../segment/semantics';
import { exactId } from '../exactId';
import { loggedClaimArgs } from '../rows/claimLog';
import { type Statement, raw } from '../serverExecutor';

/** The claim on MySQL/MariaDB: one statement answering max_id and semantics in LAST_INSERT_ID (docs/design.md#segments). */

/** max_id + `added` within 0..2^63−1, LAST_INSERT_ID(new max_id | leaf << 63): one unsigned 64-bit answer. */
export function claimStatement(bizTag: string, added: number): Statement {
  const isLeaf =
    "(COALESCE((SELECT s.semantics FROM `leaf_semantics` s WHERE s.biz_tag = ?), (SELECT d.semantics FROM `leaf_semantics` d WHERE d.biz_tag = ?), ?) = 'leaf')";
  return raw(
    `UPDATE \`leaf_alloc\` SET max_id = LAST_INSERT_ID((max_id + ?) | (${isLeaf} << 63)) & ${MAX_ID} WHERE biz_tag = ? AND max_id BETWEEN 0 AND ?`,
    [added, bizTag, FLEET_DEFAULT_KEY, DEFAULT_SEMANTICS, bizTag, MAX_ID - BigInt(added)],
  );
}

/** The claim and its leaf_claim row: `leaf_ts_claim_logged(…)`, one round trip (drizzle/mysql/0012). */
export function loggedClaimStatement(bizTag: string, added: number, note: ClaimNote): Statement {
  return raw('CALL leaf_ts_claim_logged(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', loggedClaimArgs(bizTag, added, note));
}

/** The procedure's one row, the claim's LAST_INSERT_ID as text (null: no row changed); a CALL answers its result sets. */
export function decodeLoggedClaim(rows: unknown[], bizTag: string): { maxId: Id; semantics: Semantics } | undefined {
  const set = rows[0] as Array<{ claimed: string | null }> | undefined;
  const claimed = set?.[0]?.claimed ?? null;
  return claimed === null ? undefined : decodeClaim(claimed, bizTag);
}

const SEMANTICS_BIT = 1n << 63n;
const TWO_TO_64 = 1n << 64n;

/** mysql2 reads the insert id as signed (bit 63 negative): the same 64 bits, read back as unsigned. */
export function decodeClaim(insertId: unknown, bizTag: string): { maxId: Id; semantics: Semantics } {
  let encoded = BigInt(String(insertId));
  if (encoded < 0n) encoded += TWO_TO_64;
  return { maxId: exactId(String(encoded & MAX_ID), bizTag), semantics: encoded >= SEMANTICS_BIT ? 'leaf' : 'leaf-ts' };
}
