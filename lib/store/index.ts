import type { LeafStore } from './leafStore';
import { MysqlStore } from './mysql';
import { SqliteStore } from './sqlite';
import { type StoreTarget, seedDemoTag } from './target';

export { DEMO_TAG, type StoreTarget } from './target';

/** Opens the store the configuration names, every repository of it (a server). A new SQLite database gets the demo tag. */
export async function openStore({ mysql, sqliteFile, migrationsDir }: StoreTarget): Promise<LeafStore> {
  if (mysql !== null) return MysqlStore.open({ url: mysql, migrationsDir });
  const store = new SqliteStore({ file: sqliteFile, migrationsDir });
  if (store.created) await seedDemoTag(store.tags);
  return store;
}
