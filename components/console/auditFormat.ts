import type { AuditAction, AuditEntryView, AuditTagRow } from './api';
import { formatDecimal, formatInt } from './format';

/** Presentation of audit entries: what the console's audit list says about each. */

export const AUDIT_ACTION_LABEL: Record<AuditAction, string> = {
  'tag.create': 'created',
  'tag.edit': 'edited',
  'tag.raise': 'max_id raised',
  'tag.delete': 'deleted',
  'auth.login': 'login',
  'auth.login_failed': 'login refused',
  'auth.logout': 'logout',
};

type Field = 'step' | 'maxId' | 'description';
const FIELD_LABEL: Record<Field, string> = { step: 'step', maxId: 'max_id', description: 'description' };

function shown(row: AuditTagRow, field: Field): string {
  if (field === 'step') return formatInt(row.step);
  if (field === 'maxId') return formatDecimal(row.maxId);
  return row.description === null ? '(none)' : `“${row.description}”`;
}

/** One line per changed field, `step 100 → 750`; a create lists the new row, a delete what it ended at. */
export function auditChanges(entry: Pick<AuditEntryView, 'action' | 'before' | 'after'>): string[] {
  const { before, after } = entry;
  const fields: Field[] = ['step', 'maxId', 'description'];
  if (before === null && after !== null) return fields.filter((f) => f !== 'description' || after.description !== null).map((f) => `${FIELD_LABEL[f]} ${shown(after, f)}`);
  if (before !== null && after === null) return [`at max_id ${shown(before, 'maxId')}`];
  if (before !== null && after !== null) {
    const changed = fields.filter((f) => shown(before, f) !== shown(after, f)).map((f) => `${FIELD_LABEL[f]} ${shown(before, f)} → ${shown(after, f)}`);
    return changed.length > 0 ? changed : ['no change'];
  }
  return entry.action === 'auth.login_failed' ? ['wrong token'] : [];
}

/** `2026-12-03 03:04:05` in the viewer's time zone; the ISO time is kept for the title. */
export function formatWhen(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
