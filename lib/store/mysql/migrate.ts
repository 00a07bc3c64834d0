import { randomUUID } from 'node:crypto';
import mysql, { type Connection, type PoolOptions } from 'mysql2/promise';
import { pending, readMigrations } from '../migrations';
import { classify } from './errors';
import type { MysqlHost } from './url';

/** Once, at start, on the first ready host; one another host would not refuse for is skipped. */
export async function migrateOnFirstReachable(
  hosts: MysqlHost[],
  options: PoolOptions,
  migrationsDir: string | undefined,
): Promise<void> {
  let last: unknown;
  for (const h of hosts) {
    let conn: Connection;
    try {
      conn = await mysql.createConnection({ ...options, host: h.host, port: h.port });
    } catch (error) {
      last = error;
      continue;
    }
    try {
      await migrateMysql(conn, migrationsDir);
      return;
    } catch (error) {
      if (!classify(error, 'uncommitted').moveHost) throw error;
      last = error;
    } finally {
      await conn.end().catch(() => conn.destroy());
    }
  }
  throw last;
}

export interface MysqlMigrateOptions {
  lockTimeoutSeconds?: number;
  /** Tests: take the table lock even where GET_LOCK works. */
  forceTableLock?: boolean;
}

/** Under a lock between nodes: GET_LOCK, or on Galera a lease row in `__leaf_migration_lock`. */
export async function migrateMysql(
  conn: Connection,
  migrationsDir?: string,
  { lockTimeoutSeconds = 60, forceTableLock = false }: MysqlMigrateOptions = {},
): Promise<number> {
  const migrations = readMigrations('mysql', migrationsDir);
  const release = await migrationLock(conn, lockTimeoutSeconds, forceTableLock);
  try {
    await conn.query(
      'CREATE TABLE IF NOT EXISTS `__drizzle_migrations` (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)',
    );
    const [rows] = await conn.query('SELECT MAX(created_at) AS last FROM `__drizzle_migrations`');
    const todo = pending(migrations, Number((rows as Array<{ last: unknown }>)[0]?.last ?? 0));
    for (const m of todo) {
      for (const statement of m.sql) if (statement.trim()) await conn.query(statement);
      await conn.query('INSERT INTO `__drizzle_migrations` (hash, created_at) VALUES (?, ?)', [m.hash, m.folderMillis]);
    }
    return todo.length;
  } finally {
    await release();
  }
}

/** Some MariaDB builds refuse GET_LOCK on a Galera node (wsrep_on=ON): "doesn't yet support 'GET_LOCK in cluster'". */
const ER_NOT_SUPPORTED_YET = 1235;
const ER_LOCK_DEADLOCK = 1213;
/** A node that died holding the table lock loses it after this long; migrations take well under it. */
const TABLE_LOCK_LEASE_MS = 120_000;
const TABLE_LOCK_POLL_MS = 250;

/** On Galera GET_LOCK locks nothing between nodes (node-local in 10.11, 1235 in older builds). */
async function isGaleraNode(conn: Connection): Promise<boolean> {
  const [rows] = await conn.query("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'");
  return String((rows as Array<{ Value?: unknown }>)[0]?.Value ?? '').toUpperCase() === 'ON';
}

/** GET_LOCK on a single server; on Galera a lease row that replicates like any other. */
async function migrationLock(
  conn: Connection,
  timeoutSeconds: number,
  forceTableLock: boolean,
): Promise<() => Promise<void>> {
  const galera = await isGaleraNode(conn);
  if (galera) {
    // Causal reads: after the previous holder's DELETE of the lease row is seen here, so is every migration it
    // recorded before it (the journal read below must not be stale, or a migration would run twice).
    await conn.query('SET SESSION wsrep_sync_wait = 1');
  }
  if (!forceTableLock && !galera) {
    try {
      const [lockRows] = await conn.query('SELECT GET_LOCK(?, ?) AS ok', ['leaf_ts_migrations', timeoutSeconds]);
      if (Number((lockRows as Array<{ ok: unknown }>)[0]?.ok) !== 1)
        throw new Error('could not take the migration lock');
      return async () => {
        await conn.query('SELECT RELEASE_LOCK(?)', ['leaf_ts_migrations']);
      };
    } catch (error) {
      if ((error as { errno?: unknown }).errno !== ER_NOT_SUPPORTED_YET) throw error;
    }
  }
  await conn.query(
    'CREATE TABLE IF NOT EXISTS `__leaf_migration_lock` (id TINYINT PRIMARY KEY, holder VARCHAR(64) NOT NULL, expires_at BIGINT NOT NULL)',
  );
  const holder = randomUUID();
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (;;) {
    try {
      // Take the row when it is free or its holder's lease ran out; the assignments run left to right, so
      // expires_at is extended only when holder is (now) us.
      await conn.query(
        'INSERT INTO `__leaf_migration_lock` (id, holder, expires_at) VALUES (1, ?, CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) + ?) ' +
          'ON DUPLICATE KEY UPDATE holder = IF(expires_at < CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED), VALUES(holder), holder), ' +
          'expires_at = IF(holder = VALUES(holder), VALUES(expires_at), expires_at)',
        [holder, TABLE_LOCK_LEASE_MS],
      );
      const [rows] = await conn.query('SELECT holder FROM `__leaf_migration_lock` WHERE id = 1');
      if ((rows as Array<{ holder: string }>)[0]?.holder === holder) break;
    } catch (error) {
      // Two nodes taking the row at once on different Galera hosts: one loses certification (1213) and tries again.
      if ((error as { errno?: unknown }).errno !== ER_LOCK_DEADLOCK) throw error;
    }
    if (Date.now() > deadline) throw new Error('could not take the migration lock');
    await new Promise((resolve) => setTimeout(resolve, TABLE_LOCK_POLL_MS));
  }
  return async () => {
    // Others polling write the same row; should our DELETE lose certification to one of them, it is run again
    // (deleting our own lease twice is harmless). Left behind, the lease would hold every other start for minutes.
    for (let n = 1; ; n++) {
      try {
        await conn.query('DELETE FROM `__leaf_migration_lock` WHERE id = 1 AND holder = ?', [holder]);
        return;
      } catch (error) {
        if ((error as { errno?: unknown }).errno !== ER_LOCK_DEADLOCK || n >= 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * n));
      }
    }
  };
}
