import type { AuditAction, AuditEntryRow, AuditSemantics, AuditStamp, AuditTagRow } from '../audit';
import type { AuditRecord } from '../admin/auditStore';
import type { FormatRow } from '../format/formatStore';
import type { TagRow } from '../admin/tagStore';
import type { TokenRow } from '../auth/tokenStore';

type AuditedRow = TagRow | AuditSemantics | TokenRow | FormatRow;

/** The limits of leaf_audit's text columns (lib/store/schema): a longer value is cut, never refused. */
const ACTOR_MAX = 128;
const ADDRESS_MAX = 64;
const NODE_ID_MAX = 255;

/** One leaf_audit row as both dialects insert it (field names of the drizzle schemas). */
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
  before: AuditedRow | undefined,
  after: AuditedRow | undefined,
): AuditInsert {
  return {
    at: stamp.at,
    action,
    bizTag,
    actor: stamp.actor.slice(0, ACTOR_MAX),
    address: stamp.address.slice(0, ADDRESS_MAX),
    nodeId: stamp.nodeId.slice(0, NODE_ID_MAX),
    before: before === undefined ? null : JSON.stringify(entryRow(before)),
    after: after === undefined ? null : JSON.stringify(entryRow(after)),
  };
}

/** The audit trail's copy of a tag row: max_id as a decimal string, the time as ISO. */
export function auditTagRow(row: TagRow): AuditTagRow {
  return { bizTag: row.bizTag, maxId: String(row.maxId), step: row.step, description: row.description, updateTime: row.updateTime.toISOString() };
}

/** A tag row (with its semantics when a switch carries them), a fleet switch's own record, a token row (no hash) or a format row. */
function entryRow(row: AuditedRow | (TagRow & AuditSemantics)): AuditEntryRow {
  if (!('bizTag' in row) || 'pattern' in row) return row;
  const tagRow = auditTagRow(row);
  return 'semantics' in row ? { ...tagRow, semantics: row.semantics, ...(row.bumped === undefined ? {} : { bumped: row.bumped }) } : tagRow;
}

/** A stored row, whichever dialect read it (ids and times may arrive as decimal strings). */
export type AuditStored = Omit<AuditInsert, 'at' | 'action'> & { id: number | string; at: number | string; action: string };

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
