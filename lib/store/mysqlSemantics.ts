import { DEFAULT_SEMANTICS, FLEET_DEFAULT_KEY, type Semantics, storedSemantics } from '../segment/semantics';
import { MAX_SAFE_ID, type SemanticsSettings } from './types';

/**
 * leaf_semantics on MySQL/MariaDB: the statements of the claim's and the switch's transactions (MysqlStore runs
 * them). Why they are safe together: a switch that changes a tag's semantics updates that tag's leaf_alloc row
 * (max_id + 1, or for leaf → leaf-ts a write of the same value) before it commits, and a claim updates the row
 * before it reads the semantics. Both hold the row's lock to their commit, so a claim either runs wholly before the
 * switch (it reads the old semantics: its first consistent read comes after its UPDATE, and the switch is not
 * committed) or wholly after it (its UPDATE waited for the switch's commit, its read sees the new semantics). On
 * Galera the two write sets share that row's key, so certification lets one of them commit first and fails the
 * other (1213), which runs again from the start.
 */

/** A statement inside a transaction. */
type Run = <R>(text: string, params: unknown[]) => Promise<R>;

interface SemanticsRow {
  biz_tag: string;
  semantics: string;
}

/** The claim's read, after its UPDATE: the tag's own row, else the fleet default, else leaf-ts. A plain read. */
export async function claimSemanticsMysql(run: Run, bizTag: string): Promise<Semantics> {
  const rows = await run<SemanticsRow[]>('SELECT biz_tag, semantics FROM `leaf_semantics` WHERE biz_tag IN (?, ?)', [bizTag, FLEET_DEFAULT_KEY]);
  return pick(rows, bizTag) ?? pick(rows, FLEET_DEFAULT_KEY) ?? DEFAULT_SEMANTICS;
}

/** The switch's read: the fleet default and the tag's own row, locked so two switches take turns. */
export async function lockSemanticsRowsMysql(run: Run, bizTag?: string): Promise<{ fleet: Semantics | undefined; own: Semantics | undefined }> {
  const keys = bizTag === undefined ? [FLEET_DEFAULT_KEY] : [FLEET_DEFAULT_KEY, bizTag];
  const rows = await run<SemanticsRow[]>(`SELECT biz_tag, semantics FROM \`leaf_semantics\` WHERE biz_tag IN (${keys.map(() => '?').join(', ')}) FOR UPDATE`, keys);
  return { fleet: pick(rows, FLEET_DEFAULT_KEY), own: bizTag === undefined ? undefined : pick(rows, bizTag) };
}

export async function listSemanticsMysql(run: Run): Promise<SemanticsSettings> {
  const settings: SemanticsSettings = { default: DEFAULT_SEMANTICS, tags: {} };
  for (const row of await run<SemanticsRow[]>('SELECT biz_tag, semantics FROM `leaf_semantics`', [])) {
    const value = storedSemantics(row.semantics);
    if (value === undefined) continue;
    if (row.biz_tag === FLEET_DEFAULT_KEY) settings.default = value;
    else settings.tags[row.biz_tag] = value;
  }
  return settings;
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
  await run('UPDATE `leaf_alloc_tombstone` SET max_id = max_id + ? WHERE biz_tag = ? AND max_id <= ?', [by, bizTag, MAX_SAFE_ID - by]);
  await run('UPDATE `leaf_alloc` SET max_id = max_id + ? WHERE biz_tag = ? AND max_id <= ?', [by, bizTag, MAX_SAFE_ID - by]);
}

/** Every row and tombstone that follows the fleet default (no row of its own): max_id + `by`; rows that grew. */
export async function bumpDefaultFollowersMysql(run: Run, by: 0 | 1): Promise<number> {
  const followers = 'NOT EXISTS (SELECT 1 FROM `leaf_semantics` s WHERE s.biz_tag = t.biz_tag) AND t.max_id <= ?';
  await run(`UPDATE \`leaf_alloc_tombstone\` t SET t.max_id = t.max_id + ? WHERE ${followers}`, [by, MAX_SAFE_ID - by]);
  const header = await run<Changed>(`UPDATE \`leaf_alloc\` t SET t.max_id = t.max_id + ? WHERE ${followers}`, [by, MAX_SAFE_ID - by]);
  return by === 1 ? header.affectedRows : 0;
}

function pick(rows: SemanticsRow[], key: string): Semantics | undefined {
  return storedSemantics(rows.find((r) => r.biz_tag === key)?.semantics);
}
