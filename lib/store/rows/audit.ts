/** leaf_audit's rows: the insert every dialect writes, and each dialect's read to an AuditRecord (docs/design.md). */
import type { AuditEntryRow, AuditRecord } from '../../admin/auditStore';
import type { AuditAction, AuditStamp } from '../../audit';

/** A row as its audit entry keeps it, typed loosely so writing the trail needs none of their modules. */
type EntryRow = object;

/** The limits of leaf_audit's text columns (lib/store/schema): a longer value is cut, never refused. */
const ACTOR_MAX = 128;
const ADDRESS_MAX = 64;
const NODE_ID_MAX = 255;

/** One leaf_audit row as every dialect inserts it (field names of the drizzle schemas). */
export interface AuditInsert {
  at: number;
  action: AuditAction;
  bizTag: string | null;
  actor: string;
  address: string;
  nodeId: string;
  before: string | null;
  after: string | null;
}

export function auditInsert(
  stamp: AuditStamp,
  action: AuditAction,
  bizTag: string | null,
  before: EntryRow | undefined,
  after: EntryRow | undefined,
): AuditInsert {
  return {
    at: stamp.at,
    action,
    bizTag,
    actor: stamp.actor.slice(0, ACTOR_MAX),
    address: stamp.address.slice(0, ADDRESS_MAX),
    nodeId: stamp.nodeId.slice(0, NODE_ID_MAX),
    before: before === undefined ? null : JSON.stringify(before),
    after: after === undefined ? null : JSON.stringify(after),
  };
}

/** A stored row, whichever dialect read it (ids and times may arrive as decimal strings). */
export type AuditStored = Omit<AuditInsert, 'at' | 'action'> & {
  id: number | string;
  at: number | string;
  action: string;
};

export function auditRecord(r: AuditStored): AuditRecord {
  return {
    id: Number(r.id),
    at: Number(r.at),
    action: r.action as AuditAction,
    bizTag: r.bizTag,
    actor: r.actor,
    address: r.address,
    nodeId: r.nodeId,
    before: parseRow(r.before),
    after: parseRow(r.after),
  };
}

function parseRow(text: string | null): AuditEntryRow | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as AuditEntryRow;
  } catch {
    return null; // written by hand: shown as absent rather than failing the whole list
  }
}

export interface RawAuditRow {
  id: string;
  at: string;
  action: string;
  biz_tag: string | null;
  actor: string;
  address: string;
  node_id: string;
  before: string | null;
  after: string | null;
}

export function auditFromRaw(r: RawAuditRow): AuditRecord {
  return auditRecord({ ...r, bizTag: r.biz_tag, nodeId: r.node_id });
}
