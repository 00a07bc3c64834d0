import type { LeafStore } from './leafStore';
import { MysqlStore } from './mysql';
import { PostgresStore } from './postgres';
import { SqliteStore } from './sqlite';
import { type StoreTarget, seedDemoTag } from './target';

export { DEMO_TAG, type StoreTarget } from './target';

/** Opens the store the configuration names, every repository of it (a server). A new SQLite database gets the demo tag. */
export async function openStore({ mysql, postgres, sqliteFile, migrationsDir }: StoreTarget): Promise<LeafStore> {
  if (mysql !== null) return MysqlStore.open({ url: mysql, migrationsDir });
  if (postgres !== null) return PostgresStore.open({ url: postgres, migrationsDir });
  const store = new SqliteStore({ file: sqliteFile, migrationsDir });
  if (store.created) await seedDemoTag(store.tags);
  return store;
}
