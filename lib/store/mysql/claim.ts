import { type Id, MAX_ID } from '../../segment/id';
import { DEFAULT_SEMANTICS, FLEET_DEFAULT_KEY, type Semantics } from '../../segment/semantics';
import { exactId } from '../exactId';
import { type Statement, raw } from '../serverExecutor';

/**
 * The segment claim on MySQL/MariaDB: one autocommit statement (one round trip, one write set on Galera) whose
 * UPDATE of the tag's row reads the tag's semantics in a subquery, both coming back in the OK packet's
 * LAST_INSERT_ID. Why a switch cannot fall between a claim and its semantics: a switch that changes a tag's semantics
 * writes that tag's leaf_alloc row (max_id + 1, or for leaf → leaf-ts + 0) and its leaf_semantics row in one
 * transaction (semantics.ts). The claim holds the row's lock before it reads leaf_semantics, and InnoDB reads other
 * tables inside an UPDATE as locking reads (shared locks, the latest committed rows) under REPEATABLE READ, the
 * default: so a claim either runs wholly before the switch (old semantics, and the switch's + 1 follows it) or after
 * it (new semantics, above the + 1). Both take the locks in that order (leaf_alloc, then leaf_semantics), so they do
 * not deadlock. On Galera, where locks are local, the two write sets share the row's key: certification commits one
 * first and fails the other (1213), which runs again from the start and then reads what committed.
 */

/**
 * The claim: max_id + `added`, kept within 0..2^63−1 by its WHERE, and LAST_INSERT_ID(new max_id | leaf << 63) —
 * one unsigned 64-bit value the OK packet carries: the new max_id in the low 63 bits (a signed BIGINT's whole
 * positive range), bit 63 set when the tag's semantics are leaf. MySQL's bit operators work on BIGINT UNSIGNED and
 * LAST_INSERT_ID holds an unsigned 64-bit value, so nothing overflows even at max_id 2^63−1. max_id itself is that
 * value with bit 63 masked off, in the same assignment, so no reliance on the order in which UPDATE evaluates
 * assignments. The WHERE keeps max_id at least 0 too: a negative one would set bit 63 by itself.
 */
export function claimStatement(bizTag: string, added: number): Statement {
  const isLeaf =
    "(COALESCE((SELECT s.semantics FROM `leaf_semantics` s WHERE s.biz_tag = ?), (SELECT d.semantics FROM `leaf_semantics` d WHERE d.biz_tag = ?), ?) = 'leaf')";
  return raw(
    `UPDATE \`leaf_alloc\` SET max_id = LAST_INSERT_ID((max_id + ?) | (${isLeaf} << 63)) & ${MAX_ID} WHERE biz_tag = ? AND max_id BETWEEN 0 AND ?`,
    [added, bizTag, FLEET_DEFAULT_KEY, DEFAULT_SEMANTICS, bizTag, MAX_ID - BigInt(added)],
  );
}

const SEMANTICS_BIT = 1n << 63n;
const TWO_TO_64 = 1n << 64n;

/**
 * The claim's LAST_INSERT_ID back into max_id and semantics. mysql2 reads the OK packet's insert id as a signed
 * 64-bit number (a decimal string beyond 2^53 with bigNumberStrings), so bit 63 arrives as a negative value: the
 * same 64 bits, read back as unsigned here.
 */
export function decodeClaim(insertId: unknown, bizTag: string): { maxId: Id; semantics: Semantics } {
  let encoded = BigInt(String(insertId));
  if (encoded < 0n) encoded += TWO_TO_64;
  return { maxId: exactId(String(encoded & MAX_ID), bizTag), semantics: encoded >= SEMANTICS_BIT ? 'leaf' : 'leaf-ts' };
}
