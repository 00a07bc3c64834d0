import type { LeafConfig } from '../config';
import { LeafError } from '../errors';
import { MysqlStore } from './mysql';
import { SqliteStore } from './sqlite';
import type { LeafStore } from './types';

export const DEMO_TAG = { bizTag: 'demo', step: 1000, description: 'Demo tag, created on first start' } as const;

/** Opens the store the configuration names. A new embedded database gets one demo tag, so the app is useful at once. */
export async function openStore({ mysql, sqliteFile, migrationsDir }: LeafConfig['store']): Promise<LeafStore> {
  if (mysql !== null) return MysqlStore.open({ url: mysql, migrationsDir });
  const store = new SqliteStore({ file: sqliteFile, migrationsDir });
  if (store.created) {
    // Several processes may create the file together (cluster start): one of them seeds the demo tag.
    await store.createTag(DEMO_TAG).catch((error: unknown) => {
      if (!(error instanceof LeafError && error.code === 'tag_exists')) throw error;
    });
  }
  return store;
}
