import type { TagStore } from '../segment/tagStore';
import { MysqlExecutor } from './mysql/executor';
import { mysqlDialect } from './mysql/dialect';
import { PostgresExecutor } from './postgres/executor';
import { postgresDialect } from './postgres/dialect';
import { ServerTags } from './server/tags';
import { SqliteExecutor } from './sqlite/executor';
import { SqliteTags } from './sqlite/tags';
import { type StoreTarget, seedDemoTag } from './target';

/** Only the tags of a database (its executor and leaf_alloc): what leaf-ts/embedded needs, nothing else. */
export async function openTags(target: StoreTarget): Promise<{ tags: TagStore; close(): Promise<void> }> {
  const { migrationsDir } = target;
  if (target.kind === 'mysql') {
    const exec = await MysqlExecutor.open({ url: target.mysql, migrationsDir });
    return { tags: new ServerTags(exec, mysqlDialect), close: () => exec.close() };
  }
  if (target.kind === 'postgres') {
    const exec = await PostgresExecutor.open({ url: target.postgres, migrationsDir });
    return { tags: new ServerTags(exec, postgresDialect), close: () => exec.close() };
  }
  const exec = new SqliteExecutor({ file: target.sqliteFile, migrationsDir });
  const tags = new SqliteTags(exec);
  if (exec.created) await seedDemoTag(tags);
  return { tags, close: async () => exec.close() };
}
