import path from 'node:path';
import { type MigrationMeta, readMigrationFiles } from 'drizzle-orm/migrator';

/**
 * drizzle-kit's generated migrations from `drizzle/<dialect>/`, applied by our own small runner in each dialect
 * (sqlite/migrate.ts, mysql/migrate.ts, postgres/migrate.ts), because several nodes start at once: each takes a lock first, so two nodes
 * never apply the same migration twice. Journal table and hashes match drizzle's own migrator.
 *
 * The first migration creates `leaf_alloc` only IF NOT EXISTS (edited by hand after drizzle-kit): on a database a
 * Java Leaf fleet already uses, its table is adopted as it is — same columns — so a leaf-ts node can start beside
 * the Java nodes (test/integration/leafDatabase.test.ts). Which migrations are pending goes by their timestamps,
 * not their hashes, so the edit does not re-run it anywhere.
 */
export function migrationsFolder(
  dialect: 'sqlite' | 'mysql' | 'postgres',
  root: string = defaultMigrationsDir(),
): string {
  return path.join(/*turbopackIgnore: true*/ root, dialect);
}

/** `./drizzle` of the working directory; LEAF_MIGRATIONS_DIR (read by lib/config.ts) overrides it. */
export function defaultMigrationsDir(): string {
  return path.join(/*turbopackIgnore: true*/ process.cwd(), 'drizzle');
}

export function readMigrations(dialect: 'sqlite' | 'mysql' | 'postgres', root?: string): MigrationMeta[] {
  return readMigrationFiles({ migrationsFolder: migrationsFolder(dialect, root) });
}

/** The migrations not applied yet: newer than the last one the journal holds. */
export function pending(migrations: MigrationMeta[], lastAppliedMillis: number): MigrationMeta[] {
  return migrations.filter((m) => m.folderMillis > lastAppliedMillis);
}
