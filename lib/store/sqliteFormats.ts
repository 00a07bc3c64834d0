import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { auditInsert } from './auditRows';
import { SQLITE_NOW_MS as DB_NOW_MS } from './dbClock';
import { type FormatStored, checkCreate, checkEdit, claimFrom, formatNotFound, formatRow, periodRow } from './formatRows';
import { leafFormat, leafFormatPeriod } from './schema/sqlite';
import { insertAuditSqlite } from './sqliteAudit';
import type { AuditStamp } from '../audit';
import type { FormatChanges, FormatPeriodRow, FormatRow, NewFormat, PeriodClaim } from '../format/formatStore';

/** leaf_format and leaf_format_period on SQLite. Synchronous; SqliteStore runs writes in immediate transactions. */
export function listFormatsSqlite(db: BetterSQLite3Database): FormatRow[] {
  return db.select().from(leafFormat).where(isNull(leafFormat.deletedAt)).orderBy(asc(leafFormat.bizTag)).all().map(formatRow);
}

function readFormat(db: BetterSQLite3Database, bizTag: string): FormatStored | undefined {
  return db.select().from(leafFormat).where(eq(leafFormat.bizTag, bizTag)).get();
}

export function getFormatSqlite(db: BetterSQLite3Database, bizTag: string): FormatRow | undefined {
  const found = readFormat(db, bizTag);
  return found === undefined || found.deletedAt !== null ? undefined : formatRow(found);
}

export function listFormatPeriodsSqlite(db: BetterSQLite3Database, bizTag: string, periodKeys?: string[]): FormatPeriodRow[] {
  const where = and(eq(leafFormatPeriod.bizTag, bizTag), periodKeys === undefined ? undefined : inArray(leafFormatPeriod.periodKey, periodKeys));
  return db.select().from(leafFormatPeriod).where(where).orderBy(desc(leafFormatPeriod.periodKey)).all().map(periodRow);
}

/**
 * One INSERT … ON CONFLICT DO UPDATE … RETURNING: the period's row is created with the first numbers, or its
 * max_id moves up, clipped at the cap. SET reads the row as it was, so `step` is what this claim got.
 */
export function claimPeriodSqlite(db: BetterSQLite3Database, bizTag: string, periodKey: string, step: number, cap: number): PeriodClaim {
  // Bigints: better-sqlite3 binds a JS number as a REAL.
  const s = BigInt(step);
  const c = BigInt(cap);
  const t = leafFormatPeriod;
  const row = db
    .insert(t)
    .values({ bizTag, periodKey, maxId: sql`MIN(${s}, ${c})`, step: sql`MIN(${s}, ${c})`, updateTime: DB_NOW_MS })
    .onConflictDoUpdate({
      target: [t.bizTag, t.periodKey],
      set: { step: sql`MIN(${t.maxId} + ${s}, ${c}) - ${t.maxId}`, maxId: sql`MIN(${t.maxId} + ${s}, ${c})`, updateTime: DB_NOW_MS },
    })
    .returning({ maxId: t.maxId, step: t.step })
    .get();
  return claimFrom(Number(row.maxId) - Number(row.step) + 1, Number(row.step), cap);
}

export function giveBackPeriodSqlite(db: BetterSQLite3Database, bizTag: string, periodKey: string, claimedMaxId: number, newMaxId: number): boolean {
  const t = leafFormatPeriod;
  const result = db
    .update(t)
    .set({ maxId: sql`${BigInt(newMaxId)}`, updateTime: DB_NOW_MS })
    .where(and(eq(t.bizTag, bizTag), eq(t.periodKey, periodKey), eq(t.maxId, sql`${BigInt(claimedMaxId)}`)))
    .run();
  return result.changes === 1;
}

export function createFormatSqlite(db: BetterSQLite3Database, format: NewFormat, audit: AuditStamp): FormatRow {
  const found = readFormat(db, format.bizTag);
  checkCreate(found, format);
  const values = { ...format, description: format.description ?? null, deletedAt: null, createdAt: DB_NOW_MS, updatedAt: DB_NOW_MS };
  db.insert(leafFormat).values(values).onConflictDoUpdate({ target: leafFormat.bizTag, set: values }).run();
  const after = getFormatSqlite(db, format.bizTag) as FormatRow;
  insertAuditSqlite(db, auditInsert(audit, 'format.create', format.bizTag, undefined, after));
  return after;
}

export function updateFormatSqlite(db: BetterSQLite3Database, bizTag: string, changes: FormatChanges, audit: AuditStamp): FormatRow {
  const before = getFormatSqlite(db, bizTag);
  if (before === undefined) throw formatNotFound(bizTag);
  checkEdit(before, changes);
  db.update(leafFormat).set({ ...changes, updatedAt: DB_NOW_MS }).where(eq(leafFormat.bizTag, bizTag)).run();
  const after = getFormatSqlite(db, bizTag) as FormatRow;
  insertAuditSqlite(db, auditInsert(audit, 'format.edit', bizTag, before, after));
  return after;
}

export function deleteFormatSqlite(db: BetterSQLite3Database, bizTag: string, audit: AuditStamp): void {
  const before = getFormatSqlite(db, bizTag);
  if (before === undefined) throw formatNotFound(bizTag);
  db.update(leafFormat).set({ deletedAt: DB_NOW_MS }).where(eq(leafFormat.bizTag, bizTag)).run();
  insertAuditSqlite(db, auditInsert(audit, 'format.delete', bizTag, before, undefined));
}
