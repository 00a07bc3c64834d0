import { and, eq, inArray, lte, notInArray, sql } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { FLEET_DEFAULT_KEY, type Semantics, storedSemantics } from '../segment/semantics';
import { leafAlloc, leafAllocTombstone, leafSemantics } from './schema/sqlite';
import { type StoredSemantics, effectiveSemantics as effective, semanticsSettings } from './tagRules';
import { MAX_ID } from '../segment/id';
import type { SemanticsSettings } from '../segment/semanticsStore';

/** The highest max_id a switch may still raise by one (bound as a bigint: exact). */
const bumpable = () => sql`${MAX_ID - 1n}`;

/**
 * leaf_semantics on SQLite: synchronous statements, run by SqliteStore inside its immediate transactions (the
 * claim's and the switch's), so a claim and a switch never interleave.
 */

/** The fleet default and the tag's own row, as stored (undefined: no row). */
export function readSemanticsRows(db: BetterSQLite3Database, bizTag?: string): StoredSemantics {
  const keys = bizTag === undefined ? [FLEET_DEFAULT_KEY] : [FLEET_DEFAULT_KEY, bizTag];
  const rows = db.select().from(leafSemantics).where(inArray(leafSemantics.bizTag, keys)).all();
  const of = (key: string) => storedSemantics(rows.find((r) => r.bizTag === key)?.semantics);
  return { fleet: of(FLEET_DEFAULT_KEY), own: bizTag === undefined ? undefined : of(bizTag) };
}

export function effectiveSemantics(db: BetterSQLite3Database, bizTag: string): Semantics {
  return effective(readSemanticsRows(db, bizTag));
}

export function listSemanticsSqlite(db: BetterSQLite3Database): SemanticsSettings {
  return semanticsSettings(db.select().from(leafSemantics).all());
}

/** Writes (or with null removes) one leaf_semantics row. */
export function writeSemanticsRow(db: BetterSQLite3Database, key: string, semantics: Semantics | null): void {
  if (semantics === null) {
    db.delete(leafSemantics).where(eq(leafSemantics.bizTag, key)).run();
    return;
  }
  db.insert(leafSemantics).values({ bizTag: key, semantics }).onConflictDoUpdate({ target: leafSemantics.bizTag, set: { semantics } }).run();
}

/** max_id + 1 for one tag (row and tombstone); how many leaf_alloc rows moved. */
export function bumpTagSqlite(db: BetterSQLite3Database, bizTag: string): number {
  db.update(leafAllocTombstone).set({ maxId: sql`${leafAllocTombstone.maxId} + 1` }).where(and(eq(leafAllocTombstone.bizTag, bizTag), lte(leafAllocTombstone.maxId, bumpable()))).run();
  return db.update(leafAlloc).set({ maxId: sql`${leafAlloc.maxId} + 1` }).where(and(eq(leafAlloc.bizTag, bizTag), lte(leafAlloc.maxId, bumpable()))).run().changes;
}

/** max_id + 1 for every tag (row and tombstone) that follows the fleet default; how many leaf_alloc rows moved. */
export function bumpDefaultFollowersSqlite(db: BetterSQLite3Database): number {
  const own = db.select({ bizTag: leafSemantics.bizTag }).from(leafSemantics);
  db.update(leafAllocTombstone).set({ maxId: sql`${leafAllocTombstone.maxId} + 1` }).where(and(notInArray(leafAllocTombstone.bizTag, own), lte(leafAllocTombstone.maxId, bumpable()))).run();
  return db.update(leafAlloc).set({ maxId: sql`${leafAlloc.maxId} + 1` }).where(and(notInArray(leafAlloc.bizTag, own), lte(leafAlloc.maxId, bumpable()))).run().changes;
}
