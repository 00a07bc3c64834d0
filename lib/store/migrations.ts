import path from 'node:path';
import { type MigrationMeta, readMigrationFiles } from 'drizzle-orm/migrator';

/** drizzle-kit's migrations, applied by our own runner per dialect under a lock, so nodes may start together. */
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
