import type { AuditAction, AuditStamp } from '../audit';

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
