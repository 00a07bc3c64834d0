import type { LeafStore } from './leafStore';
import { MysqlStore } from './mysql';
import { PostgresStore } from './postgres';
import { SqliteStore } from './sqlite';
import { type StoreTarget, seedDemoTag } from './target';

export { DEMO_TAG, type StoreTarget } from './target';

/** Opens the store the configuration names, every repository of it (a server). A new SQLite database gets the demo tag. */
export async function openStore(target: StoreTarget): Promise<LeafStore> {
  const { migrationsDir } = target;
  if (target.kind === 'mysql') return MysqlStore.open({ url: target.mysql, migrationsDir });
  if (target.kind === 'postgres') return PostgresStore.open({ url: target.postgres, migrationsDir });
  const store = new SqliteStore({ file: target.sqliteFile, migrationsDir });
  if (store.created) await seedDemoTag(store.tags);
  return store;
}
