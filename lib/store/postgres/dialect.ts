import { sql } from 'drizzle-orm';
import type { ServerDialect } from '../server/dialect';
import { assignments, valuesOf } from '../server/query';
import { raw } from '../serverExecutor';
import { type ClaimRow, claimStatement, decodeClaim, loggedClaimStatement } from './claim';

/** The advisory-lock classes of a tag's and a format's name (two-int form: apart from the migration lock's key). */
const NAME_LOCK = { tag: 0x1eaf, format: 0x1eb0 } as const;

/** PostgreSQL's differences; the clock is the statement's own start (now() is the transaction's). */
export const postgresDialect: ServerDialect = {
  name: 'postgres',
  nowMs: sql.raw('floor(extract(epoch from statement_timestamp()) * 1000)::bigint'),

  insertIgnore: (table, row) => sql`INSERT INTO ${table} ${valuesOf(row)} ON CONFLICT DO NOTHING`,

  upsert: (table, row, key, update) =>
    sql`INSERT INTO ${table} AS existing ${valuesOf(row)} ON CONFLICT (${sql.join(
      key.map((k) => sql.identifier(k)),
      sql`, `,
    )}) DO UPDATE SET ${assignments(
      update(
        (column) => sql`existing.${sql.identifier(column)}`,
        (column) => sql`EXCLUDED.${sql.identifier(column)}`,
      ),
    )}`,

  // FOR UPDATE locks no row that is not there yet: a create and a delete of one name take turns on this lock.
  nameLock: (kind, name) => sql`SELECT pg_advisory_xact_lock(${NAME_LOCK[kind]}, hashtext(${name}))`,

  // Row locks cover only the rows that exist: a tag created and claimed meanwhile would miss the switch's bump.
  lockAllTags: sql`LOCK TABLE leaf_alloc IN SHARE ROW EXCLUSIVE MODE`,

  claim: (bizTag, added) => ({
    query: claimStatement(bizTag, added),
    decode: (result) => decodeClaim(result.rows as unknown as ClaimRow[], bizTag),
  }),

  claimLogged: (bizTag, added, note) => ({
    query: loggedClaimStatement(bizTag, added, note),
    decode: (result) => decodeClaim(result.rows as unknown as ClaimRow[], bizTag),
  }),

  /** RETURNING answers the row as it is now: the first number is the new max_id − the new step + 1. */
  claimPeriod: (bizTag, periodKey, step, cap) => ({
    query: raw(
      'INSERT INTO leaf_format_period AS p (biz_tag, period_key, max_id, step, update_time) ' +
        'VALUES ($1, $2, LEAST($3::bigint, $4::bigint), LEAST($3::bigint, $4::bigint), floor(extract(epoch from statement_timestamp()) * 1000)::bigint) ' +
        'ON CONFLICT (biz_tag, period_key) DO UPDATE SET max_id = GREATEST(p.max_id, LEAST(p.max_id + $3::bigint, $4::bigint)), ' +
        'step = GREATEST(p.max_id, LEAST(p.max_id + $3::bigint, $4::bigint)) - p.max_id, ' +
        'update_time = floor(extract(epoch from statement_timestamp()) * 1000)::bigint RETURNING max_id, step',
      [bizTag, periodKey, step, cap],
    ),
    decode: (result) => {
      const row = result.rows[0] as { max_id: string; step: number } | undefined;
      return row === undefined ? undefined : Number(row.max_id) - Number(row.step) + 1;
    },
  }),
};
