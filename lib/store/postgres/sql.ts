import { type Table, sql } from 'drizzle-orm';
import { type NodePgDatabase, drizzle } from 'drizzle-orm/node-postgres';
import { type Id, idBigint } from '../../segment/id';
import type { AuditInsert } from '../auditRows';
import { leafAudit } from '../schema/postgres';
import type { Tx } from '../serverExecutor';

/** Drizzle for PostgreSQL, compiling only: the executor runs what it builds (client-side bound, primary check, retries). */
export const db: NodePgDatabase = drizzle.mock();

/**
 * The database clock in ms since the Unix epoch: lease and heartbeat times are on it, so skewed nodes agree. The
 * statement's own start (statement_timestamp), so one statement's times agree and each statement reads the clock anew
 * (now() would be its transaction's start).
 */
export const NOW_MS_SQL = 'floor(extract(epoch from statement_timestamp()) * 1000)::bigint';
export const DB_NOW_MS = sql.raw(NOW_MS_SQL);

/** An Id written to a bigint column: a bigint parameter, which pg sends as its exact decimal text. */
export function bigintParam(id: Id) {
  return sql`${idBigint(id)}`;
}

/**
 * A row of `table` as the executor answers it: keyed by column name (pg runs drizzle's compiled text), bigint
 * columns as decimal strings (pg's default for int8), which exactId checks before they become numbers.
 */
export type RawRow<T extends Table> = {
  [
    F in keyof T['$inferSelect'] & keyof T['_']['columns'] as T['_']['columns'][F]['_']['name']
  ]: T['_']['columns'][F]['_']['columnType'] extends 'PgBigInt53' | 'PgBigInt64' | 'PgBigSerial53'
    ? string
    : T['$inferSelect'][F];
};

/** A change's audit row, written in the change's own transaction (a change without its audit row cannot commit). */
export async function insertAudit(tx: Tx, row: AuditInsert): Promise<void> {
  await tx(db.insert(leafAudit).values(row));
}
