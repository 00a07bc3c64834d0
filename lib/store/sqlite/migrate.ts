import type BetterSqlite3 from 'better-sqlite3';
import { pending, readMigrations } from '../migrations';

/** Applies the pending migrations under BEGIN IMMEDIATE (the lock between processes); returns how many. */
export function migrateSqlite(db: BetterSqlite3.Database, migrationsDir?: string): number {
  const migrations = readMigrations('sqlite', migrationsDir);
  db.exec(
    'CREATE TABLE IF NOT EXISTS __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)',
  );
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
