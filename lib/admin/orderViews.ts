/**
 * A tag's ordering, its change and its owner as the console and the admin API show them (lib/ordered; docs/api.md):
 * a change to strict is pending until every process acknowledged it — then the tag is strict *since* that moment.
 */
import type { OrderRead, OrderRow, Ordering, Participant, ParticipantRead } from '../ordered/orderStore';

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

/** A process a change to strict still waits for. */
export interface ParticipantView {
  instanceId: string;
  kind: Participant['kind'];
  /** The node id, or the embedded process's name. */
  label: string;
  host: string;
  /** The ordering version it has applied. */
  ackedVersion: number;
  startedAt: string;
  /** Since its last acknowledgement, on the database's clock: a process long silent is likely gone. */
  lastSeenAgoMs: number;
}

export interface PendingView {
  /** When the tag was made strict (ISO). */
  since: string;
  version: number;
  /** The processes that have not acknowledged it yet (their clients wait behind the nodes). */
  waitingFor: ParticipantView[];
}

export interface OrderingView {
  ordering: Ordering;
  /** When the change to strict completed (ISO): from then on the order holds on every path. Null otherwise. */
  strictSince: string | null;
  /** A change to strict not every process has acknowledged yet; null otherwise. */
  pending: PendingView | null;
  /** null for an ordinary tag, and for a strict tag before its first owner or after a release. */
  owner: OwnerView | null;
}

export function participantView(p: Participant, dbNowMs: number): ParticipantView {
  return {
    instanceId: p.instanceId,
    kind: p.kind,
    label: p.label,
    host: p.host,
    ackedVersion: p.ackedVersion,
    startedAt: new Date(p.startedAt).toISOString(),
    lastSeenAgoMs: Math.max(0, dbNowMs - p.seenAt),
  };
}

/** Whether any change to strict is pending: only then are the participants worth a read. */
export function anyPending(read: OrderRead): boolean {
  return read.rows.some(isPending);
}

function isPending(row: OrderRow): boolean {
  return row.ordering === 'strict' && row.completeAt === 0;
}

export function orderingView(read: OrderRead, participants: ParticipantRead | null, bizTag: string): OrderingView {
  const row = read.rows.find((r) => r.bizTag === bizTag);
  if (row === undefined || row.ordering === 'none')
    return { ordering: 'none', strictSince: null, pending: null, owner: null };
  const pending: PendingView | null = !isPending(row)
    ? null
    : {
        since: new Date(row.changedAt).toISOString(),
        version: row.version,
        waitingFor: (participants?.participants ?? [])
          .filter((p) => p.ackedVersion < row.version)
          .map((p) => participantView(p, participants?.dbNowMs ?? read.dbNowMs)),
      };
  const strictSince = pending === null ? new Date(row.completeAt).toISOString() : null;
  if (row.ownerNode === null || row.leaseExpiresAt === 0)
    return { ordering: 'strict', strictSince, pending, owner: null };
  return {
    ordering: 'strict',
    strictSince,
    pending,
    owner: {
      nodeId: row.ownerNode,
      address: row.ownerAddress ?? '',
      epoch: row.epoch,
      leaseAgeMs: read.dbNowMs - row.acquiredAt,
      leaseLeftMs: row.leaseExpiresAt - read.dbNowMs,
    },
  };
}
