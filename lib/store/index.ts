import { LeafError } from '../errors';
import { MysqlStore } from './mysql';
import { SqliteStore } from './sqlite';
import type { LeafStore } from './types';

export const DEFAULT_SQLITE_FILE = './data/leaf.db';
export const DEMO_TAG = { bizTag: 'demo', step: 1000, description: 'Demo tag, created on first start' } as const;

export interface StoreConfig {
  /** mysql://… selects MySQL/MariaDB; file:… or unset selects SQLite. */
  databaseUrl?: string;
  sqliteFile?: string;
}

/** Opens the store the environment asks for. A new embedded database gets one demo tag, so the app is useful at once. */
export async function openStore({ databaseUrl, sqliteFile }: StoreConfig): Promise<LeafStore> {
  if (databaseUrl && /^mysql:\/\//i.test(databaseUrl)) return MysqlStore.open({ url: databaseUrl });
  if (databaseUrl && !/^(file|sqlite):/i.test(databaseUrl)) {
    throw new LeafError('invalid_config', `DATABASE_URL must start with mysql:// or file: (got "${databaseUrl.split(':')[0]}:")`);
  }
  const file = databaseUrl ? databaseUrl.replace(/^(file|sqlite):(\/\/)?/i, '') : (sqliteFile ?? DEFAULT_SQLITE_FILE);
  const store = new SqliteStore({ file });
  if (store.created) {
    // Several processes may create the file together (cluster start): one of them seeds the demo tag.
    await store.createTag(DEMO_TAG).catch((error: unknown) => {
      if (!(error instanceof LeafError && error.code === 'tag_exists')) throw error;
    });
  }
  return store;
}
