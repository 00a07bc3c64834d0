/** What ordered tags need of the database (their port): the leaf_order rows and the owner lease's three writes. */
import type { AuditStamp } from '../audit';

/** A tag's ordering: `strict` (IDs increase across the whole fleet) or `none` (segment order, the default). */
export const ORDERINGS = ['strict', 'none'] as const;
export type Ordering = (typeof ORDERINGS)[number];

/** One leaf_order row: a strict tag and its owner's lease, times in ms on the database clock. */
export interface OrderRow {
  bizTag: string;
  strictSince: number;
  /** Grows with every acquisition; 0 before the first. */
  epoch: number;
  ownerNode: string | null;
  ownerInstance: string | null;
  ownerAddress: string | null;
  /** 0 after a release. */
  leaseExpiresAt: number;
  acquiredAt: number;
}

/** Every row, with the database clock at the read, so a lease's age needs no other clock. */
export interface OrderRead {
  rows: OrderRow[];
  dbNowMs: number;
}

/** Who asks for a lease: the node's id and address (forwarders use it) and this process's instance. */
export interface OwnerClaim {
  nodeId: string;
  instanceId: string;
  address: string;
}

/** The lease's rules, the same on every node: the length and the margin both sides keep. */
export interface LeaseTerms {
  leaseMs: number;
  marginMs: number;
  /** A tag made strict gets no owner before this much time has passed, so every node heard first. */
  settleMs: number;
}

export interface OrderStore {
  readOrder(): Promise<OrderRead>;
  /** One transaction with its audit entry (tag.ordering); `tag_not_found` when missing. Before and after. */
  setOrdering(bizTag: string, ordering: Ordering, audit?: AuditStamp): Promise<{ before: Ordering; after: Ordering }>;
  /**
   * Takes the lease as epoch `seenEpoch + 1` when the row is still at `seenEpoch` and its lease expired `marginMs`
   * ago by the database's clock (or was released, or is this instance's); false when another may still serve.
   */
  acquireOwner(bizTag: string, claim: OwnerClaim, terms: LeaseTerms, seenEpoch: number): Promise<boolean>;
  /** Extends a lease still live on the database's clock and still this epoch's; false when it is not. */
  renewOwner(bizTag: string, instanceId: string, epoch: number, leaseMs: number): Promise<boolean>;
  /** Ends the lease at once (a graceful stop), so the next owner need not wait it out. */
  releaseOwner(bizTag: string, instanceId: string, epoch: number): Promise<void>;
}
