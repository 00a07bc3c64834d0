import pg from 'pg';
import { pending, readMigrations } from '../migrations';
import { NotPrimary, classify } from './errors';
import type { PgConfig } from './pool';

/** Once, at start, on the first host that is the primary; a standby or an unreachable host is skipped. */
export async function migrateOnPrimary(configs: PgConfig[], migrationsDir: string | undefined): Promise<void> {
  let last: unknown;
  for (const config of configs) {
    const client = new pg.Client(config);
    client.on('error', () => {}); // a connection lost meanwhile fails the statement in flight, which says so
    try {
      await client.connect();
    } catch (error) {
      last = error;
      continue;
    }
    try {
      const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
      if (rows[0]?.standby !== false) {
        last = new NotPrimary(`${config.host}:${config.port} is a standby (in recovery), not the primary`);
        continue;
      }
      await migratePostgres(client, migrationsDir);
      return;
    } catch (error) {
      if (!classify(error, 'uncommitted').moveHost) throw error;
      last = error;
    } finally {
      await client.end().catch(() => {});
    }
  }
  throw last;
}

/** The advisory lock every node's migrations take (one bigint key: "leaf_ts" in ASCII). */
const MIGRATION_LOCK = '30510766488515699';
const LOCK_POLL_MS = 250;

/** Under pg_advisory_lock; each migration and its journal row in one transaction (DDL is transactional). */
export async function migratePostgres(
  client: pg.Client,
  migrationsDir?: string,
  { lockTimeoutSeconds = 60 } = {},
): Promise<number> {
  const migrations = readMigrations('postgres', migrationsDir);
  const deadline = Date.now() + lockTimeoutSeconds * 1000;
  // Polled with the try form: a wait inside pg_advisory_lock would be cut by statement_timeout, or hang without it.
  while (
    !(await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${MIGRATION_LOCK}::bigint) AS ok`)).rows[0]?.ok
  ) {
    if (Date.now() > deadline) throw new Error('could not take the migration lock');
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS __drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)',
    );
    const { rows } = await client.query<{ last: string | null }>(
      'SELECT MAX(created_at) AS last FROM __drizzle_migrations',
    );
    const todo = pending(migrations, Number(rows[0]?.last ?? 0));
    for (const m of todo) {
      await client.query('BEGIN');
      try {
        for (const statement of m.sql) if (statement.trim()) await client.query(statement);
        await client.query('INSERT INTO __drizzle_migrations (hash, created_at) VALUES ($1, $2)', [
          m.hash,
          m.folderMillis,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    }
    return todo.length;
  } finally {
    await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK}::bigint)`).catch(() => {});
  }
}
