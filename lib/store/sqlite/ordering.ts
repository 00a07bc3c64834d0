import type { OrderingChange, Ordering } from '../../ordered/orderStore';
import { lockOrderRowSql, lockVersionSql, planOrdering } from '../rows/order';
import type { SqliteDb } from './executor';
import { DB_NOW_MS } from './sql';

/** A change of ordering inside the caller's transaction (SQLite's writer holds the file): version row, then the tag's. */
export function changeOrdering(db: SqliteDb, bizTag: string, ordering: Ordering): OrderingChange {
  const versionRows = db.all<{ version: unknown }>(lockVersionSql(false));
  const tagRows = db.all<{ ordering: unknown }>(lockOrderRowSql(bizTag, false));
  const plan = planOrdering(DB_NOW_MS, bizTag, ordering, versionRows, tagRows);
  for (const write of plan.writes) db.run(write);
  return { before: plan.before, after: plan.after, version: plan.version };
}
