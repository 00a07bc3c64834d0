/** leaf_order rows and the owner lease's statements, written once for every dialect (SQLite runs them too). */
import { type SQL, sql } from 'drizzle-orm';
import type { OrderRow, OwnerClaim, LeaseTerms } from '../../ordered/orderStore';

const ORDER = sql.identifier('leaf_order');

/** A leaf_order row as a driver returns it (bigints may come as strings: ms values fit a Number exactly). */
export interface RawOrderRow {
  biz_tag: string;
  strict_since: number | string;
  epoch: number | string;
  owner_node: string | null;
  owner_instance: string | null;
  owner_address: string | null;
  lease_expires_at: number | string;
  acquired_at: number | string;
}

export function orderFromRaw(r: RawOrderRow): OrderRow {
  return {
    bizTag: r.biz_tag,
    strictSince: Number(r.strict_since),
    epoch: Number(r.epoch),
    ownerNode: r.owner_node,
    ownerInstance: r.owner_instance,
    ownerAddress: r.owner_address,
    leaseExpiresAt: Number(r.lease_expires_at),
    acquiredAt: Number(r.acquired_at),
  };
}

export const selectOrderRows = (): SQL => sql`SELECT * FROM ${ORDER} ORDER BY biz_tag`;

export const selectNow = (nowMs: SQL): SQL => sql`SELECT ${nowMs} AS db_now`;

/**
 * The epoch after `seenEpoch`, when the old lease expired `marginMs` ago (a release set it to 0) or is this
 * instance's own, and the tag has been strict for `settleMs`. A compare-and-set on the epoch: two nodes that saw the
 * same row cannot both win.
 */
export function acquireOwnerSql(nowMs: SQL, bizTag: string, c: OwnerClaim, t: LeaseTerms, seenEpoch: number): SQL {
  return sql`UPDATE ${ORDER} SET epoch = ${seenEpoch + 1}, owner_node = ${c.nodeId},
      owner_instance = ${c.instanceId}, owner_address = ${c.address}, lease_expires_at = ${nowMs} + ${t.leaseMs},
      acquired_at = ${nowMs}
    WHERE biz_tag = ${bizTag} AND epoch = ${seenEpoch} AND strict_since + ${t.settleMs} <= ${nowMs}
      AND (lease_expires_at + ${t.marginMs} < ${nowMs} OR owner_instance = ${c.instanceId})`;
}

/** Only a lease still live on the database's clock is extended: an expired one may have a successor already. */
export function renewOwnerSql(nowMs: SQL, bizTag: string, instanceId: string, epoch: number, leaseMs: number): SQL {
  return sql`UPDATE ${ORDER} SET lease_expires_at = ${nowMs} + ${leaseMs}
    WHERE biz_tag = ${bizTag} AND owner_instance = ${instanceId} AND epoch = ${epoch} AND lease_expires_at >= ${nowMs}`;
}

export function releaseOwnerSql(bizTag: string, instanceId: string, epoch: number): SQL {
  return sql`UPDATE ${ORDER} SET lease_expires_at = 0
    WHERE biz_tag = ${bizTag} AND owner_instance = ${instanceId} AND epoch = ${epoch}`;
}

export const insertStrictSql = (nowMs: SQL, bizTag: string): SQL =>
  sql`INSERT INTO ${ORDER} (biz_tag, strict_since, epoch, lease_expires_at, acquired_at) VALUES (${bizTag}, ${nowMs}, 0, 0, 0)`;

export const deleteStrictSql = (bizTag: string): SQL => sql`DELETE FROM ${ORDER} WHERE biz_tag = ${bizTag}`;
