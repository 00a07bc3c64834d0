import type { ClaimLogStore } from '../claims/claimLogStore';
import type { OrderStore } from '../ordered/orderStore';
import { ServerClaimLog } from './server/claimLog';
import { SqliteClaimLog } from './sqlite/claimLog';
import type { SettingStore } from '../settings/settingStore';
import type { TagStore } from '../segment/tagStore';
import { ServerSettings } from './server/settings';
import { SqliteSettings } from './sqlite/settings';
import { MysqlExecutor } from './mysql/executor';
import { mysqlDialect } from './mysql/dialect';
import { PostgresExecutor } from './postgres/executor';
import { postgresDialect } from './postgres/dialect';
import { ServerOrder } from './server/order';
import { ServerTags } from './server/tags';
import { SqliteExecutor } from './sqlite/executor';
import { SqliteOrder } from './sqlite/order';
import { SqliteTags } from './sqlite/tags';
import { type StoreTarget, seedDemoTag } from './target';

/**
 * What leaf-ts/embedded needs of a database, nothing else: leaf_alloc, leaf_setting to check its region, and
 * leaf_order and leaf_participant to acknowledge changes of ordering.
 */
export interface TagsOnly {
  tags: TagStore;
  settings: SettingStore;
  order: OrderStore;
  /** Its claims' log rows are written with the claims; this writes its close row. */
  claims: Pick<ClaimLogStore, 'recordClose'>;
  close(): Promise<void>;
}

/** Only the tags of a database (its executor, leaf_alloc and leaf_setting). */
export async function openTags(target: StoreTarget): Promise<TagsOnly> {
  const { migrationsDir } = target;
  if (target.kind === 'mysql') {
    const exec = await MysqlExecutor.open({ url: target.mysql, migrationsDir });
    const settings = new ServerSettings(exec, mysqlDialect);
    const order = new ServerOrder(exec, mysqlDialect);
    const claims = new ServerClaimLog(exec, mysqlDialect);
    return { tags: new ServerTags(exec, mysqlDialect), settings, order, claims, close: () => exec.close() };
  }
  if (target.kind === 'postgres') {
    const exec = await PostgresExecutor.open({ url: target.postgres, migrationsDir });
    const settings = new ServerSettings(exec, postgresDialect);
    const order = new ServerOrder(exec, postgresDialect);
    const claims = new ServerClaimLog(exec, postgresDialect);
    return { tags: new ServerTags(exec, postgresDialect), settings, order, claims, close: () => exec.close() };
  }
  const exec = new SqliteExecutor({ file: target.sqliteFile, migrationsDir });
  const tags = new SqliteTags(exec);
  if (exec.created) await seedDemoTag(tags);
  return {
    tags,
    settings: new SqliteSettings(exec),
    order: new SqliteOrder(exec),
    claims: new SqliteClaimLog(exec),
    close: async () => exec.close(),
  };
}
