import { LeafError } from '../errors';
import { MysqlStore } from './mysql';
import type { MysqlTarget } from './mysql/url';
import { SqliteStore } from './sqlite';
import type { LeafStore } from './leafStore';

export const DEMO_TAG = { bizTag: 'demo', step: 1000, description: 'Demo tag, created on first start' } as const;

/** Which database to open: the server's `config.store`, or `leaf-ts/embedded`'s own options. */
export interface StoreTarget {
  /** null selects SQLite at `sqliteFile`. */
  mysql: MysqlTarget | null;
  sqliteFile: string;
  migrationsDir: string;
}

/** Opens the store the configuration names. A new SQLite database gets one demo tag, so the app is useful at once. */
export async function openStore({ mysql, sqliteFile, migrationsDir }: StoreTarget): Promise<LeafStore> {
  if (mysql !== null) return MysqlStore.open({ url: mysql, migrationsDir });
  const store = new SqliteStore({ file: sqliteFile, migrationsDir });
  if (store.created) {
    // Several processes may create the file together (cluster start): one of them seeds the demo tag.
    await store.tags.createTag(DEMO_TAG).catch((error: unknown) => {
      if (!(error instanceof LeafError && error.code === 'tag_exists')) throw error;
    });
  }
  return store;
}
