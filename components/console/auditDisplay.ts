import type { AuditAction, AuditEntryRow, AuditEntryView, AuditTagRow, TokenView } from './api';
import { showDecimal, showInt, showUtc } from './display';

/** Presentation of audit entries: what the console's audit list says about each. */

export const AUDIT_ACTION_LABEL: Record<AuditAction, string> = {
  'tag.create': 'created',
  'tag.edit': 'edited',
  'tag.raise': 'max_id raised',
  'tag.delete': 'deleted',
  'tag.semantics': 'semantics switched',
  'tag.ordering': 'ordering changed',
  'tag.encoding': 'created opaque',
  'fleet.semantics': 'fleet default semantics switched',
  'auth.login': 'login',
  'auth.login_failed': 'login refused',
  'auth.logout': 'logout',
  'auth.session_end': 'session ended',
  'auth.sign_out_everywhere': 'signed out everywhere',
  'token.create': 'access token created',
  'token.revoke': 'access token revoked',
  'format.create': 'formatted tag created',
  'format.edit': 'formatted tag edited',
  'format.delete': 'formatted tag deleted',
  'participant.forget': 'process forgotten',
};

type Field = 'step' | 'maxId' | 'description';
const FIELD_LABEL: Record<Field, string> = { step: 'step', maxId: 'max_id', description: 'description' };

function shown(row: AuditTagRow, field: Field): string {
  if (field === 'step') return showInt(row.step);
  if (field === 'maxId') return showDecimal(row.maxId);
  return row.description === null ? '(none)' : `“${row.description}”`;
}

/** One line per changed field, `step 100 → 750`; a create lists the new row, a delete what it ended at. */
export function auditChanges(entry: Pick<AuditEntryView, 'action' | 'before' | 'after'>): string[] {
  const format = formatChanges(formatRow(entry.before), formatRow(entry.after));
  if (format !== null) return format;
  if (entry.before !== null && entry.after !== null && 'ordering' in entry.before && 'ordering' in entry.after)
    return [`ordering ${entry.before.ordering} → ${entry.after.ordering}`];
  const semantics = semanticsChange(entry);
  const before = tagRow(entry.before);
  const after = tagRow(entry.after);
  if (semantics !== null) {
    const maxId =
      before !== null && after !== null && before.maxId !== after.maxId
        ? [`max_id ${shown(before, 'maxId')} → ${shown(after, 'maxId')}`]
        : [];
    return [semantics, ...maxId];
  }
  const fields: Field[] = ['step', 'maxId', 'description'];
  if (before === null && after !== null)
    return fields
      .filter((f) => f !== 'description' || after.description !== null)
      .map((f) => `${FIELD_LABEL[f]} ${shown(after, f)}`);
  if (before !== null && after === null) return [`at max_id ${shown(before, 'maxId')}`];
  if (before !== null && after !== null) {
    const changed = fields
      .filter((f) => shown(before, f) !== shown(after, f))
      .map((f) => `${FIELD_LABEL[f]} ${shown(before, f)} → ${shown(after, f)}`);
    return changed.length > 0 ? changed : ['no change'];
  }
  const token = tokenRow(entry.after);
  if (token !== null) return [`token “${token.name}” (${token.id}) on ${token.tags.join(', ')}`];
  if (entry.before !== null && 'sessions' in entry.before) {
    const n = entry.before.sessions.length;
    return [n === 1 ? `session ${entry.before.sessions[0]}` : `${showInt(n)} sessions`];
  }
  return entry.action === 'auth.login_failed' ? ['wrong token'] : [];
}

type FormatEntry = Extract<AuditEntryRow, { pattern: string }>;
const FORMAT_FIELDS = ['pattern', 'resetPeriod', 'timeZone', 'step', 'description'] as const;

function formatRow(row: AuditEntryRow | null): FormatEntry | null {
  return row !== null && 'pattern' in row ? row : null;
}

/** A formatted tag's entry: the new row on create, what changed on edit, the pattern on delete; null for others. */
function formatChanges(before: FormatEntry | null, after: FormatEntry | null): string[] | null {
  const field = (row: FormatEntry, f: (typeof FORMAT_FIELDS)[number]): string =>
    f === 'step' ? showInt(row.step) : String(row[f] ?? '(none)');
  const label = (f: string): string => (f === 'resetPeriod' ? 'reset' : f === 'timeZone' ? 'zone' : f);
  if (before === null && after !== null) return FORMAT_FIELDS.map((f) => `${label(f)} ${field(after, f)}`);
  if (before !== null && after === null) return [`pattern ${before.pattern} (its periods are kept)`];
  if (before === null || after === null) return null;
  const changed = FORMAT_FIELDS.filter((f) => field(before, f) !== field(after, f)).map(
    (f) => `${label(f)} ${field(before, f)} → ${field(after, f)}`,
  );
  return changed.length > 0 ? changed : ['no change'];
}

function tokenRow(row: AuditEntryRow | null): TokenView | null {
  return row !== null && 'tags' in row ? row : null;
}

function tagRow(row: AuditEntryRow | null): AuditTagRow | null {
  return row !== null && 'maxId' in row ? row : null;
}

/** `semantics leaf-ts → leaf (3 tags skipped one ID)` for a switch; null for any other entry. */
function semanticsChange({ before, after }: Pick<AuditEntryView, 'before' | 'after'>): string | null {
  if (before === null || after === null || !('semantics' in before) || !('semantics' in after)) return null;
  const bumped = after.bumped ?? 0;
  const skip = bumped === 0 ? '' : ` (${showInt(bumped)} ${bumped === 1 ? 'tag' : 'tags'} skipped one ID)`;
  return `semantics ${before.semantics} → ${after.semantics}${skip}`;
}

/** `2026-12-03 03:04:05` in the viewer's time zone; the ISO time is kept for the title. */
export function formatWhen(iso: string): string {
  return showUtc(Date.parse(iso));
}
