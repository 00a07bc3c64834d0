import { type Table, sql } from 'drizzle-orm';
import { type MySql2Database, drizzle } from 'drizzle-orm/mysql2';
import { type Id, idBigint } from '../../segment/id';
import type { AuditInsert } from '../auditRows';
import { leafAudit } from '../schema/mysql';
import type { Tx } from '../serverExecutor';

/** Drizzle for MySQL, compiling only: the executor runs what it builds (per-query timeout, host choice, retries). */
export const db: MySql2Database = drizzle.mock();

/** The database clock in ms since the Unix epoch: lease and heartbeat times are on it, so skewed nodes agree. */
export const NOW_MS_SQL = 'CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)';
export const DB_NOW_MS = sql.raw(NOW_MS_SQL);

/** An Id written to a BIGINT column: a bigint parameter, which mysql2 writes as an exact integer literal. */
export function bigintParam(id: Id) {
  return sql`${idBigint(id)}`;
}

/**
 * A row of `table` as the executor receives it: drizzle compiles the query, but mysql2 runs it (for the per-query
 * timeout), so rows are keyed by column name, not drizzle's field name, and BIGINT columns arrive as decimal strings
 * (bigNumberStrings), which exactId checks before they become numbers.
 */
export type RawRow<T extends Table> = {
  [
    F in keyof T['$inferSelect'] & keyof T['_']['columns'] as T['_']['columns'][F]['_']['name']
  ]: T['_']['columns'][F]['_']['columnType'] extends 'MySqlBigInt53' | 'MySqlBigInt64' ? string : T['$inferSelect'][F];
};

/** A change's audit row, written in the change's own transaction (a change without its audit row cannot commit). */
export async function insertAudit(tx: Tx, row: AuditInsert): Promise<void> {
  await tx(db.insert(leafAudit).values(row));
}
