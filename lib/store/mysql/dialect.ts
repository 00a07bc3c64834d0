import { sql } from 'drizzle-orm';
import type { ServerDialect } from '../server/dialect';
import { type Columns, type TableName, assignments, valuesOf } from '../server/query';
import { raw } from '../serverExecutor';
import { claimStatement, decodeClaim, decodeLoggedClaim, loggedClaimStatement } from './claim';

/** MySQL, MariaDB and Galera: what differs from PostgreSQL (server/dialect.ts). */
export const mysqlDialect: ServerDialect = {
  name: 'mysql',
  nowMs: sql.raw('CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)'),

  insertIgnore: (table: TableName, row: Columns) => sql`INSERT IGNORE INTO ${table} ${valuesOf(row)}`,

  upsert: (table, row, _key, update) =>
    sql`INSERT INTO ${table} ${valuesOf(row)} ON DUPLICATE KEY UPDATE ${assignments(
      update(
        (column) => sql`${sql.identifier(column)}`,
        (column) => sql`VALUES(${sql.identifier(column)})`,
      ),
    )}`,

  // InnoDB's FOR UPDATE of a missing row locks its gap: a create and a delete of one name already take turns.
  nameLock: () => null,

  lockAllTags: sql`SELECT biz_tag FROM \`leaf_alloc\` ORDER BY biz_tag FOR UPDATE`,

  claim: (bizTag, added) => ({
    query: claimStatement(bizTag, added),
    // 0 rows changed leaves LAST_INSERT_ID stale: never read insertId then.
    decode: (result) => (result.affected === 1 ? decodeClaim(result.insertId, bizTag) : undefined),
  }),

  // A procedure (drizzle/mysql/0012): a transaction from here would hold the tag's row lock over three round trips.
  claimLogged: (bizTag, added, note) => ({
    query: loggedClaimStatement(bizTag, added, note),
    decode: (result) => decodeLoggedClaim(result.rows, bizTag),
  }),

  /** LAST_INSERT_ID(expr) marks the first number, carried in the OK packet; `step` reads max_id before it moves. */
  claimPeriod: (bizTag, periodKey, step, cap) => ({
    query: raw(
      'INSERT INTO `leaf_format_period` (biz_tag, period_key, max_id, step, update_time) ' +
        'VALUES (?, ?, LEAST(LAST_INSERT_ID(1) + ? - 1, ?), LEAST(?, ?), CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)) ' +
        'ON DUPLICATE KEY UPDATE step = LEAST(max_id + ?, ?) - max_id, max_id = LEAST(LAST_INSERT_ID(max_id + 1) + ? - 1, ?), ' +
        'update_time = CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)',
      [bizTag, periodKey, step, cap, step, cap, step, cap, step, cap],
    ),
    decode: (result) => (result.insertId === undefined ? undefined : Number(result.insertId)),
  }),
};
