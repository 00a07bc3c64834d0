/** leaf_setting's read and compare-and-set, written once for every dialect (each store writes its own insert-if-absent). */
import { type SQL, sql } from 'drizzle-orm';
import type { PinnedSetting } from '../../settings/settingStore';

export const SETTING = sql.identifier('leaf_setting');

export interface RawSettingRow {
  value: string;
  set_by: string;
  set_at: number | string;
}

export const selectSettingSql = (name: string): SQL =>
  sql`SELECT value, set_by, set_at FROM ${SETTING} WHERE name = ${name}`;

export const replaceSettingSql = (name: string, expected: string, value: string, setBy: string, nowMs: SQL): SQL =>
  sql`UPDATE ${SETTING} SET value = ${value}, set_by = ${setBy}, set_at = ${nowMs} WHERE name = ${name} AND value = ${expected}`;

export function pinnedFromRaw(row: RawSettingRow | undefined, name: string): PinnedSetting {
  // Inserted-if-absent just before, and never deleted by a node: a missing row is a broken database.
  if (row === undefined) throw new Error(`leaf_setting has no row ${name} right after it was written`);
  return { value: row.value, setBy: row.set_by, setAt: Number(row.set_at) };
}
