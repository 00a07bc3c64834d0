import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import type { Connection } from 'mysql2/promise';

/**
 * Applies drizzle-kit's generated migrations from `drizzle/<dialect>/`. Our own small runner, because several
 * nodes start at once: each dialect takes a lock first (SQLite: BEGIN IMMEDIATE; MySQL: GET_LOCK), so two
 * nodes never apply the same migration twice. Journal table and hashes match drizzle's own migrator.
 */
export function migrationsFolder(dialect: 'sqlite' | 'mysql', root: string = defaultMigrationsDir()): string {
  return path.join(/*turbopackIgnore: true*/ root, dialect);
}

/** `./drizzle` of the working directory; LEAF_MIGRATIONS_DIR (read by lib/config.ts) overrides it. */
export function defaultMigrationsDir(): string {
  return path.join(/*turbopackIgnore: true*/ process.cwd(), 'drizzle');
}

function pending(migrations: MigrationMeta[], lastAppliedMillis: number): MigrationMeta[] {
  return migrations.filter((m) => m.folderMillis > lastAppliedMillis);
}

/** Returns how many migrations were applied. */
export function migrateSqlite(db: BetterSqlite3.Database, migrationsDir?: string): number {
  const migrations = readMigrationFiles({ migrationsFolder: migrationsFolder('sqlite', migrationsDir) });
  db.exec('CREATE TABLE IF NOT EXISTS __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)');
  const apply = db.transaction(() => {
    const row = db.prepare('SELECT MAX(created_at) AS last FROM __drizzle_migrations').get() as { last: number | null };
    const todo = pending(migrations, Number(row.last ?? 0));
    for (const m of todo) {
      for (const statement of m.sql) if (statement.trim()) db.exec(statement);
      db.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run(m.hash, m.folderMillis);
    }
    return todo.length;
  });
  return apply.immediate();
}

export async function migrateMysql(conn: Connection, migrationsDir?: string, lockTimeoutSeconds = 60): Promise<number> {
  const migrations = readMigrationFiles({ migrationsFolder: migrationsFolder('mysql', migrationsDir) });
  const [lockRows] = await conn.query('SELECT GET_LOCK(?, ?) AS ok', ['leaf_ts_migrations', lockTimeoutSeconds]);
  if (Number((lockRows as Array<{ ok: unknown }>)[0]?.ok) !== 1) throw new Error('could not take the migration lock');
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
    await conn.query('SELECT RELEASE_LOCK(?)', ['leaf_ts_migrations']);
  }
}
