import { sql } from 'drizzle-orm';
import { type Id, idBigint } from '../../segment/id';
import type { AuditInsert } from '../rows/audit';
import { type leafAlloc, type leafAllocTombstone, leafAudit } from '../schema/sqlite';
import type { SqliteDb } from './executor';

/** The database clock in ms since the Unix epoch: lease and heartbeat times are on it, so skewed nodes agree. */
export const DB_NOW_MS = sql`CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`;

/** A max_id column read as decimal text (better-sqlite3 would round a value beyond 2^53 to a float): exact whatever its size. */
export function maxIdText(column: typeof leafAlloc.maxId | typeof leafAllocTombstone.maxId) {
  return sql<string>`CAST(${column} AS TEXT)`;
}

/** An Id (or count) written to an INTEGER column: bound as a bigint, since better-sqlite3 binds a JS number as a REAL. */
export function bigintParam(id: Id) {
  return sql`${idBigint(id)}`;
}

/** A change's audit row, written in the change's own transaction (a change without its audit row cannot commit). */
export function insertAudit(db: SqliteDb, row: AuditInsert): void {
  db.insert(leafAudit).values(row).run();
}
