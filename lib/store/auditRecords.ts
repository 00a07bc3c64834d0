import type { AuditEntryRow, AuditRecord } from '../admin/auditStore';
import type { AuditAction } from '../audit';
import type { AuditInsert } from './auditRows';

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
