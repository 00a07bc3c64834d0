/**
 * What ordered tags need of the database (their port): the leaf_order rows, the owner lease's writes, and the
 * processes that acknowledge each change of ordering (docs/design.md#ordered-tags).
 */
import type { AuditStamp } from '../audit';

/** A tag's ordering: `strict` (IDs increase across the whole fleet) or `none` (segment order, the default). */
export const ORDERINGS = ['strict', 'none'] as const;
export type Ordering = (typeof ORDERINGS)[number];

/** One leaf_order row of a tag, times in ms on the database clock. */
export interface OrderRow {
  bizTag: string;
  ordering: Ordering;
  /** When the ordering last changed. */
  changedAt: number;
  /** The fleet's ordering version of that change. */
  version: number;
  /** When every process had acknowledged the change to strict; 0 while pending (and for `none`). */
  completeAt: number;
  /** Grows with every acquisition and every change to strict; 0 before the first. */
  epoch: number;
  ownerNode: string | null;
  ownerInstance: string | null;
  ownerAddress: string | null;
  /** 0 after a release. */
  leaseExpiresAt: number;
  acquiredAt: number;
}

/** One snapshot: the tags' rows, the fleet's ordering version they make up, and the database clock at the read. */
export interface OrderRead {
  rows: OrderRow[];
  version: number;
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
}

export type ParticipantKind = 'node' | 'embedded';

/** A process that may hold a tag's IDs in memory, registered before it reads leaf_order for the first time. */
export interface NewParticipant {
  instanceId: string;
  kind: ParticipantKind;
  /** The node id, or the embedded process's name. */
  label: string;
  /** For people: the machine's host name. */
  host: string;
  /** For proving this process dead from the same machine (procIdentity.ts). */
  procKey: string;
}

export interface Participant extends NewParticipant {
  /** The ordering version this process has applied: every change up to it is in force there. */
  ackedVersion: number;
  startedAt: number;
  /** Its last acknowledgement, on the database clock. */
  seenAt: number;
}

/** The participants, with the database clock at the read. */
export interface ParticipantRead {
  participants: Participant[];
  dbNowMs: number;
}

/** A change of a tag's ordering: before and after, and the fleet version it has (unchanged: the version before). */
export interface OrderingChange {
  before: Ordering;
  after: Ordering;
  version: number;
}

export interface OrderStore {
  readOrder(): Promise<OrderRead>;
  /** One transaction with its audit entry (tag.ordering); `tag_not_found` when missing. */
  setOrdering(bizTag: string, ordering: Ordering, audit?: AuditStamp): Promise<OrderingChange>;
  /** The change to strict at `version` completes now if every participant has acknowledged it; whether it did. */
  completeStrict(bizTag: string, version: number): Promise<boolean>;
  /**
   * Takes the lease as epoch `seenEpoch + 1` when the row is still at `seenEpoch`, its change to strict completed,
   * and its lease expired `marginMs` ago by the database's clock (or was released, or is this instance's).
   */
  acquireOwner(bizTag: string, claim: OwnerClaim, terms: LeaseTerms, seenEpoch: number): Promise<boolean>;
  /** Extends a lease still live on the database's clock and still this epoch's; false when it is not. */
  renewOwner(bizTag: string, instanceId: string, epoch: number, leaseMs: number): Promise<boolean>;
  /** Ends the lease at once (a graceful stop), so the next owner need not wait it out. */
  releaseOwner(bizTag: string, instanceId: string, epoch: number): Promise<void>;

  registerParticipant(participant: NewParticipant): Promise<void>;
  /** Raises the acknowledged version (never lowers it) and the last-seen time; false when the row is gone. */
  ackParticipant(instanceId: string, version: number): Promise<boolean>;
  /** A graceful stop, a process proven dead, or an operator's word (audited as participant.forget). */
  removeParticipant(instanceId: string, audit?: AuditStamp): Promise<boolean>;
  listParticipants(): Promise<ParticipantRead>;
  /** Removes rows silent for `silentMs` by the database clock; how many. */
  pruneParticipants(silentMs: number): Promise<number>;
}
