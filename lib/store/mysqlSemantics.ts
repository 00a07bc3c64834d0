import type { Id } from '../segment/id';
import { DEFAULT_SEMANTICS, FLEET_DEFAULT_KEY, type Semantics, storedSemantics } from '../segment/semantics';
import { type StoredSemantics, effectiveSemantics, semanticsSettings } from './tagRules';
import { MAX_ID } from '../segment/id';
import type { SemanticsSettings } from '../segment/semanticsStore';
import { exactId } from './exactId';

/**
 * leaf_semantics on MySQL/MariaDB: the claim's statement and the switch's transaction (MysqlStore runs them).
 *
 * The claim stays one autocommit statement (one round trip, one write set on Galera): its UPDATE of the tag's row
 * reads the tag's semantics in a subquery, and both come back in the OK packet's LAST_INSERT_ID (see
 * claimStatementMysql). Why a switch cannot fall between a claim and its semantics: a switch that changes a tag's
 * semantics writes that tag's leaf_alloc row (max_id + 1, or for leaf → leaf-ts + 0) and its leaf_semantics row in
 * one transaction. The claim holds the row's lock before it reads leaf_semantics, and InnoDB reads other tables
 * inside an UPDATE as locking reads (shared locks, the latest committed rows) under REPEATABLE READ, the default:
 * so a claim either runs wholly before the switch (old semantics, and the switch's + 1 follows it) or after it
 * (new semantics, above the + 1). Both take the locks in that order (leaf_alloc, then leaf_semantics), so they do
 * not deadlock. On Galera, where locks are local, the two write sets share the row's key: certification commits
 * one first and fails the other (1213), which runs again from the start and then reads what committed.
 */

/** A statement inside a transaction. */
type Run = <R>(text: string, params: unknown[]) => Promise<R>;

interface SemanticsRow {
  biz_tag: string;
  semantics: string;
}

/**
 * The claim: max_id + `added`, kept within 0..2^63−1 by its WHERE, and LAST_INSERT_ID(new max_id | leaf << 63) —
 * one unsigned 64-bit value the OK packet carries: the new max_id in the low 63 bits (a signed BIGINT's whole
 * positive range), bit 63 set when the tag's semantics are leaf. MySQL's bit operators work on BIGINT UNSIGNED and
 * LAST_INSERT_ID holds an unsigned 64-bit value, so nothing overflows even at max_id 2^63−1. max_id itself is that
 * value with bit 63 masked off, in the same assignment, so no reliance on the order in which UPDATE evaluates
 * assignments. The WHERE keeps max_id at least 0 too: a negative one would set bit 63 by itself.
 */
export function claimStatementMysql(bizTag: string, added: number): { text: string; params: unknown[] } {
  const isLeaf =
    "(COALESCE((SELECT s.semantics FROM `leaf_semantics` s WHERE s.biz_tag = ?), (SELECT d.semantics FROM `leaf_semantics` d WHERE d.biz_tag = ?), ?) = 'leaf')";
  return {
    text: `UPDATE \`leaf_alloc\` SET max_id = LAST_INSERT_ID((max_id + ?) | (${isLeaf} << 63)) & ${MAX_ID} WHERE biz_tag = ? AND max_id BETWEEN 0 AND ?`,
    params: [added, bizTag, FLEET_DEFAULT_KEY, DEFAULT_SEMANTICS, bizTag, MAX_ID - BigInt(added)],
  };
}

const SEMANTICS_BIT = 1n << 63n;
const TWO_TO_64 = 1n << 64n;

/**
 * The claim's LAST_INSERT_ID back into max_id and semantics. mysql2 reads the OK packet's insert id as a signed
 * 64-bit number (a decimal string beyond 2^53 with bigNumberStrings), so bit 63 arrives as a negative value: the
 * same 64 bits, read back as unsigned here.
 */
export function decodeClaimMysql(insertId: unknown, bizTag: string): { maxId: Id; semantics: Semantics } {
  let encoded = BigInt(String(insertId));
  if (encoded < 0n) encoded += TWO_TO_64;
  return { maxId: exactId(String(encoded & MAX_ID), bizTag), semantics: encoded >= SEMANTICS_BIT ? 'leaf' : 'leaf-ts' };
}

/** The switch of the fleet default locks every leaf_alloc row first: the claims' order (row, then semantics). */
export async function lockAllRowsMysql(run: Run): Promise<void> {
  await run('SELECT biz_tag FROM `leaf_alloc` ORDER BY biz_tag FOR UPDATE', []);
}

/** A tag's effective semantics: its own row, else the fleet default, else leaf-ts. */
export async function claimSemanticsMysql(run: Run, bizTag: string): Promise<Semantics> {
  const rows = await run<SemanticsRow[]>('SELECT biz_tag, semantics FROM `leaf_semantics` WHERE biz_tag IN (?, ?)', [bizTag, FLEET_DEFAULT_KEY]);
  return effectiveSemantics({ fleet: pick(rows, FLEET_DEFAULT_KEY), own: pick(rows, bizTag) });
}

/** The switch's read: the fleet default and the tag's own row, locked so two switches take turns. */
export async function lockSemanticsRowsMysql(run: Run, bizTag?: string): Promise<StoredSemantics> {
  const keys = bizTag === undefined ? [FLEET_DEFAULT_KEY] : [FLEET_DEFAULT_KEY, bizTag];
  const rows = await run<SemanticsRow[]>(`SELECT biz_tag, semantics FROM \`leaf_semantics\` WHERE biz_tag IN (${keys.map(() => '?').join(', ')}) FOR UPDATE`, keys);
  return { fleet: pick(rows, FLEET_DEFAULT_KEY), own: bizTag === undefined ? undefined : pick(rows, bizTag) };
}

export async function listSemanticsMysql(run: Run): Promise<SemanticsSettings> {
  const rows = await run<SemanticsRow[]>('SELECT biz_tag, semantics FROM `leaf_semantics`', []);
  return semanticsSettings(rows.map((r) => ({ bizTag: r.biz_tag, semantics: r.semantics })));
}

export async function writeSemanticsRowMysql(run: Run, key: string, semantics: Semantics | null): Promise<void> {
  if (semantics === null) await run('DELETE FROM `leaf_semantics` WHERE biz_tag = ?', [key]);
  else await run('INSERT INTO `leaf_semantics` (biz_tag, semantics) VALUES (?, ?) ON DUPLICATE KEY UPDATE semantics = VALUES(semantics)', [key, semantics]);
}

interface Changed {
  affectedRows: number;
}

/**
 * The tag's row and tombstone: max_id + `by` (0 still writes the row, so a claim in flight and this switch take
 * turns on its lock, and on Galera certify against each other). How many leaf_alloc rows matched.
 */
export async function bumpTagMysql(run: Run, bizTag: string, by: 0 | 1): Promise<void> {
  await run('UPDATE `leaf_alloc_tombstone` SET max_id = max_id + ? WHERE biz_tag = ? AND max_id <= ?', [by, bizTag, MAX_ID - BigInt(by)]);
  await run('UPDATE `leaf_alloc` SET max_id = max_id + ? WHERE biz_tag = ? AND max_id <= ?', [by, bizTag, MAX_ID - BigInt(by)]);
}

/** Every row and tombstone that follows the fleet default (no row of its own): max_id + `by`; rows that grew. */
export async function bumpDefaultFollowersMysql(run: Run, by: 0 | 1): Promise<number> {
  const followers = 'NOT EXISTS (SELECT 1 FROM `leaf_semantics` s WHERE s.biz_tag = t.biz_tag) AND t.max_id <= ?';
  await run(`UPDATE \`leaf_alloc_tombstone\` t SET t.max_id = t.max_id + ? WHERE ${followers}`, [by, MAX_ID - BigInt(by)]);
  const header = await run<Changed>(`UPDATE \`leaf_alloc\` t SET t.max_id = t.max_id + ? WHERE ${followers}`, [by, MAX_ID - BigInt(by)]);
  return by === 1 ? header.affectedRows : 0;
}

function pick(rows: SemanticsRow[], key: string): Semantics | undefined {
  return storedSemantics(rows.find((r) => r.biz_tag === key)?.semantics);
}
