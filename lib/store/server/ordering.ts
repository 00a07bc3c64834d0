import type { OrderingChange, Ordering } from '../../ordered/orderStore';
import { lockOrderRowSql, lockVersionSql, planOrdering } from '../rows/order';
import type { Tx } from '../serverExecutor';
import type { ServerDialect } from './dialect';

/** A change of ordering inside a transaction whose tag row is already locked: version row, then the tag's row. */
export async function changeOrdering(
  tx: Tx,
  dialect: ServerDialect,
  bizTag: string,
  ordering: Ordering,
): Promise<OrderingChange> {
  const versionRows = (await tx<{ version: unknown }>(lockVersionSql(true))).rows;
  const tagRows = (await tx<{ ordering: unknown }>(lockOrderRowSql(bizTag, true))).rows;
  const plan = planOrdering(dialect.nowMs, bizTag, ordering, versionRows, tagRows);
  for (const write of plan.writes) await tx(write);
  return { before: plan.before, after: plan.after, version: plan.version };
}
