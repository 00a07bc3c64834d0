import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm';
import type { MySql2Database } from 'drizzle-orm/mysql2';
import type { ResultSetHeader } from 'mysql2/promise';
import { auditInsert } from './auditRows';
import { MYSQL_NOW_MS as DB_NOW_MS, MYSQL_NOW_SQL } from './dbClock';
import { type FormatStored, type PeriodStored, checkCreate, checkEdit, claimFrom, formatNotFound, formatRow, periodRow } from './formatRows';
import { insertAuditMysql } from './mysqlAudit';
import { leafFormat, leafFormatPeriod } from './schema/mysql';
import type { AuditStamp } from '../audit';
import type { FormatChanges, FormatPeriodRow, FormatRow, NewFormat, PeriodClaim } from '../format/formatStore';

/** A statement runner of MysqlStore (inside a transaction or on its own). */
type Run = <R>(text: string, params: unknown[]) => Promise<R>;

/** leaf_format as mysql2 returns it: keyed by column name, BIGINTs as decimal strings. */
interface RawFormatRow {
  biz_tag: string;
  pattern: string;
  reset_period: string;
  time_zone: string;
  step: number;
  description: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

interface RawPeriodRow {
  biz_tag: string;
  period_key: string;
  max_id: string;
  step: number;
  update_time: string;
}

function stored(r: RawFormatRow): FormatStored {
  return {
    bizTag: r.biz_tag,
    pattern: r.pattern,
    resetPeriod: r.reset_period,
    timeZone: r.time_zone,
    step: r.step,
    description: r.description,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

function periodStored(r: RawPeriodRow): PeriodStored {
  return { bizTag: r.biz_tag, periodKey: r.period_key, maxId: r.max_id, step: r.step, updateTime: r.update_time };
}

/** leaf_format and leaf_format_period on MySQL/MariaDB; `db` only compiles (drizzle.mock), `run` executes. */
export async function listFormatsMysql(db: MySql2Database, run: Run): Promise<FormatRow[]> {
  const select = db.select().from(leafFormat).where(isNull(leafFormat.deletedAt)).orderBy(asc(leafFormat.bizTag)).toSQL();
  return (await run<RawFormatRow[]>(select.sql, select.params)).map((r) => formatRow(stored(r)));
}

/** The row under the name, deleted or not; `lock` inside a transaction (FOR UPDATE). */
async function readFormat(run: Run, bizTag: string, lock: boolean): Promise<FormatStored | undefined> {
  const [row] = await run<RawFormatRow[]>(`SELECT * FROM \`leaf_format\` WHERE biz_tag = ?${lock ? ' FOR UPDATE' : ''}`, [bizTag]);
  return row === undefined ? undefined : stored(row);
}

export async function getFormatMysql(run: Run, bizTag: string, lock = false): Promise<FormatRow | undefined> {
  const found = await readFormat(run, bizTag, lock);
  return found === undefined || found.deletedAt !== null ? undefined : formatRow(found);
}

export async function listFormatPeriodsMysql(db: MySql2Database, run: Run, bizTag: string, periodKeys?: string[]): Promise<FormatPeriodRow[]> {
  const where = and(eq(leafFormatPeriod.bizTag, bizTag), periodKeys === undefined ? undefined : inArray(leafFormatPeriod.periodKey, periodKeys));
  const select = db.select().from(leafFormatPeriod).where(where).orderBy(desc(leafFormatPeriod.periodKey)).toSQL();
  return (await run<RawPeriodRow[]>(select.sql, select.params)).map((r) => periodRow(periodStored(r)));
}

/**
 * One INSERT … ON DUPLICATE KEY UPDATE, atomic under InnoDB's row lock (and Galera's certification): the period's
 * row is created with numbers 1…, or its max_id moves up, clipped at the cap. LAST_INSERT_ID(expr) marks the
 * claim's first number (1 on insert, the old max_id + 1 on update), which comes back in the OK packet, so the claim
 * is one round trip and its numbers come from its own answer, never from a later read. Assignments run left to
 * right: `step` (the claim's size, for the console) reads the old max_id before max_id moves.
 */
export async function claimPeriodMysql(run: Run, bizTag: string, periodKey: string, step: number, cap: number): Promise<PeriodClaim> {
  const header = await run<ResultSetHeader>(
    'INSERT INTO `leaf_format_period` (biz_tag, period_key, max_id, step, update_time) ' +
      `VALUES (?, ?, LEAST(LAST_INSERT_ID(1) + ? - 1, ?), LEAST(?, ?), ${MYSQL_NOW_SQL}) ` +
      'ON DUPLICATE KEY UPDATE step = LEAST(max_id + ?, ?) - max_id, max_id = LEAST(LAST_INSERT_ID(max_id + 1) + ? - 1, ?), ' +
      `update_time = ${MYSQL_NOW_SQL}`,
    [bizTag, periodKey, step, cap, step, cap, step, cap, step, cap],
  );
  return claimFrom(Number(header.insertId), step, cap);
}

/** One statement; run by the store without a retry after an unknown outcome (then nothing counts as given back). */
export async function giveBackPeriodMysql(db: MySql2Database, run: Run, bizTag: string, periodKey: string, claimedMaxId: number, newMaxId: number): Promise<boolean> {
  const t = leafFormatPeriod;
  const update = db
    .update(t)
    .set({ maxId: newMaxId, updateTime: DB_NOW_MS })
    .where(and(eq(t.bizTag, bizTag), eq(t.periodKey, periodKey), eq(t.maxId, claimedMaxId)))
    .toSQL();
  return (await run<ResultSetHeader>(update.sql, update.params)).affectedRows === 1;
}

/** Inside a transaction: the row and its audit entry commit together. */
export async function createFormatMysql(db: MySql2Database, q: Run, format: NewFormat, audit: AuditStamp): Promise<FormatRow> {
  checkCreate(await readFormat(q, format.bizTag, true), format);
  const values = { ...format, description: format.description ?? null, deletedAt: null, createdAt: DB_NOW_MS, updatedAt: DB_NOW_MS };
  const upsert = db.insert(leafFormat).values(values).onDuplicateKeyUpdate({ set: values }).toSQL();
  await q(upsert.sql, upsert.params);
  const after = (await getFormatMysql(q, format.bizTag, true)) as FormatRow;
  await insertAuditMysql(db, q, auditInsert(audit, 'format.create', format.bizTag, undefined, after));
  return after;
}

export async function updateFormatMysql(db: MySql2Database, q: Run, bizTag: string, changes: FormatChanges, audit: AuditStamp): Promise<FormatRow> {
  const before = await getFormatMysql(q, bizTag, true);
  if (before === undefined) throw formatNotFound(bizTag);
  checkEdit(before, changes);
  const update = db.update(leafFormat).set({ ...changes, updatedAt: DB_NOW_MS }).where(eq(leafFormat.bizTag, bizTag)).toSQL();
  await q(update.sql, update.params);
  const after = (await getFormatMysql(q, bizTag, true)) as FormatRow;
  await insertAuditMysql(db, q, auditInsert(audit, 'format.edit', bizTag, before, after));
  return after;
}

export async function deleteFormatMysql(db: MySql2Database, q: Run, bizTag: string, audit: AuditStamp): Promise<void> {
  const before = await getFormatMysql(q, bizTag, true);
  if (before === undefined) throw formatNotFound(bizTag);
  const update = db.update(leafFormat).set({ deletedAt: DB_NOW_MS }).where(eq(leafFormat.bizTag, bizTag)).toSQL();
  await q(update.sql, update.params);
  await insertAuditMysql(db, q, auditInsert(audit, 'format.delete', bizTag, before, undefined));
}
