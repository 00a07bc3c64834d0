import type { TagStore } from '../segment/tagStore';
import { MysqlExecutor } from './mysql/executor';
import { mysqlDialect } from './mysql/dialect';
import { PostgresExecutor } from './postgres/executor';
import { postgresDialect } from './postgres/dialect';
import { ServerTags } from './server/tags';
import { SqliteExecutor } from './sqlite/executor';
import { SqliteTags } from './sqlite/tags';
import { type StoreTarget, seedDemoTag } from './target';

/**
 * Opens only the tags of the database the target names — its executor (migrations included) and the leaf_alloc
 * repository, nothing else: what leaf-ts/embedded needs, so its build carries no other repository nor the ports of
 * the server's modules (fleet, auth, admin) they implement. A new SQLite database gets the demo tag, as openStore does.
 */
export async function openTags({
  mysql,
  postgres,
  sqliteFile,
  migrationsDir,
}: StoreTarget): Promise<{ tags: TagStore; close(): Promise<void> }> {
  if (mysql !== null) {
    const exec = await MysqlExecutor.open({ url: mysql, migrationsDir });
    return { tags: new ServerTags(exec, mysqlDialect), close: () => exec.close() };
  }
  if (postgres !== null) {
    const exec = await PostgresExecutor.open({ url: postgres, migrationsDir });
    return { tags: new ServerTags(exec, postgresDialect), close: () => exec.close() };
  }
  const exec = new SqliteExecutor({ file: sqliteFile, migrationsDir });
  const tags = new SqliteTags(exec);
  if (exec.created) await seedDemoTag(tags);
  return { tags, close: async () => exec.close() };
}
