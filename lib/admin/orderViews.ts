/** A tag's ordering and its owner as the console and the admin API show them (lib/ordered; docs/api.md). */
import type { OrderRead, Ordering } from '../ordered/orderStore';

/** A strict tag's owner as leaf_order names it; the ages are on the database's clock. */
export interface OwnerView {
  nodeId: string;
  address: string;
  epoch: number;
  /** Since this owner took the lease. */
  leaseAgeMs: number;
  /** Until the lease runs out; negative once it has (a successor may take it a margin later). */
  leaseLeftMs: number;
}

export interface OrderingView {
  ordering: Ordering;
  /** null for an ordinary tag, and for a strict tag before its first owner or after a release. */
  owner: OwnerView | null;
}

export function orderingView(read: OrderRead, bizTag: string): OrderingView {
  const row = read.rows.find((r) => r.bizTag === bizTag);
  if (row === undefined) return { ordering: 'none', owner: null };
  if (row.ownerNode === null || row.leaseExpiresAt === 0) return { ordering: 'strict', owner: null };
  return {
    ordering: 'strict',
    owner: {
      nodeId: row.ownerNode,
      address: row.ownerAddress ?? '',
      epoch: row.epoch,
      leaseAgeMs: read.dbNowMs - row.acquiredAt,
      leaseLeftMs: row.leaseExpiresAt - read.dbNowMs,
    },
  };
}
