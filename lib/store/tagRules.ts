import { LeafError, tagNotFound } from '../errors';
import { type Id, MAX_ID_TEXT } from '../segment/id';
import {
  DEFAULT_SEMANTICS,
  FLEET_DEFAULT_KEY,
  type Semantics,
  storedSemantics,
  switchBump,
} from '../segment/semantics';
import { type AuditInsert, auditInsert } from './rows/audit';
import type { AuditAction, AuditStamp, AuditTagRow } from '../audit';
import type { NewTag, TagChanges, TagRow } from '../segment/tagStore';
import type { SemanticsSettings } from '../segment/semanticsStore';

/** The rules of a tag change as pure functions over what its transaction read locked; dialects only do I/O. */

export function tagExists(bizTag: string): LeafError {
  return new LeafError('tag_exists', `Tag "${bizTag}" already exists.`);
}

/** A raise below the row's max_id: it would hand out IDs again. */
export function lowered(bizTag: string, current: Id, requested: Id): LeafError {
  return new LeafError(
    'max_id_lowered',
    `max_id of "${bizTag}" is ${current}; lowering it to ${requested} would hand out IDs again. It can only be raised.`,
    { fields: { maxId: `Must be at least ${current}.` } },
  );
}

export function belowTombstone(bizTag: string, tombstoneMaxId: Id): LeafError {
  return new LeafError(
    'max_id_below_tombstone',
    `"${bizTag}" was deleted at max_id ${tombstoneMaxId}; re-creating it lower would hand out its old IDs again.`,
    { fields: { maxId: `Must be at least ${tombstoneMaxId} (the deleted tag's max_id).` } },
  );
}

/** A step below 1 (set by hand in SQL) would claim nothing, or move max_id backwards: never run it. */
export function badStep(bizTag: string, step: number): LeafError {
  return new LeafError('tag_misconfigured', `Tag "${bizTag}" has step ${step}; a step must be at least 1.`);
}

/** A claim refused because max_id would pass 2^63−1. */
export function idSpaceExhausted(bizTag: string): LeafError {
  return new LeafError(
    'id_space_exhausted',
    `Tag "${bizTag}" has no IDs left below ${MAX_ID_TEXT}, the largest BIGINT.`,
  );
}

/** The row an edit, raise, delete or tag switch works on, read (locked) in its transaction: `tag_not_found` when missing. */
export function existingTag(bizTag: string, row: TagRow | undefined): TagRow {
  if (row === undefined) throw tagNotFound(bizTag);
  return row;
}

/** A create's max_id: continues at a tombstone's, refuses a lower `maxId`; with neither, 1, as Leaf. */
export function planCreate({ bizTag, maxId }: Pick<NewTag, 'bizTag' | 'maxId'>, tombstoneMaxId: Id | undefined): Id {
  if (tombstoneMaxId !== undefined && maxId !== undefined && maxId < tombstoneMaxId)
    throw belowTombstone(bizTag, tombstoneMaxId);
  return maxId ?? tombstoneMaxId ?? 1;
}

/** The columns an edit writes: only those it names. */
export function planEdit({ step, description }: TagChanges): TagChanges {
  const set: TagChanges = {};
  if (step !== undefined) set.step = step;
  if (description !== undefined) set.description = description;
  return set;
}

/** A raise's new max_id: never below the row's (read locked, so no claim moves it before the write). */
export function planRaise(before: TagRow, maxId: Id): Id {
  if (before.maxId > maxId) throw lowered(before.bizTag, before.maxId, maxId);
  return maxId;
}

/** leaf_semantics as a switch reads it (locked): the fleet default's row and the tag's own; undefined where none. */
export interface StoredSemantics {
  fleet: Semantics | undefined;
  own: Semantics | undefined;
}

/** A tag's semantics: its own row, else the fleet default, else leaf-ts. */
export function effectiveSemantics({ fleet, own }: StoredSemantics): Semantics {
  return own ?? fleet ?? DEFAULT_SEMANTICS;
}

/** leaf_semantics rows (any order, unknown values skipped) as the admin API shows them. */
export function settingsFromRows(rows: Array<{ bizTag: string; semantics: string }>): SemanticsSettings {
  const settings: SemanticsSettings = { default: DEFAULT_SEMANTICS, tags: {} };
  for (const row of rows) {
    const value = storedSemantics(row.semantics);
    if (value === undefined) continue;
    if (row.bizTag === FLEET_DEFAULT_KEY) settings.default = value;
    else settings.tags[row.bizTag] = value;
  }
  return settings;
}

/** A switch: semantics before and after, and the bump (leaf-ts → leaf skips one ID). */
export interface SwitchPlan {
  before: Semantics;
  after: Semantics;
  bump: 0 | 1;
}

/** A switch of the fleet default; `changes` false when it is already so (nothing to write, nothing to audit). */
export function planDefaultSwitch(fleet: Semantics | undefined, to: Semantics): SwitchPlan & { changes: boolean } {
  const before = fleet ?? DEFAULT_SEMANTICS;
  return { before, after: to, bump: switchBump(before, to), changes: before !== to };
}

/** `writesRow` when the request differs from the tag's own row as stored: then it is written and audited. */
export function planTagSwitch(stored: StoredSemantics, to: Semantics | null): SwitchPlan & { writesRow: boolean } {
  const before = effectiveSemantics(stored);
  const after = to ?? stored.fleet ?? DEFAULT_SEMANTICS;
  return { before, after, bump: switchBump(before, after), writesRow: to !== stored.own };
}

/** The audit trail's copy of a tag row: max_id as a decimal string (exact past 2^53), the time as ISO. */
export function auditTagRow(row: TagRow): AuditTagRow {
  return {
    bizTag: row.bizTag,
    maxId: String(row.maxId),
    step: row.step,
    description: row.description,
    updateTime: row.updateTime.toISOString(),
  };
}

/** The audit row of a create, edit, raise or delete: the tag's row before and after (none before a create, none after a delete). */
export function tagAudit(
  stamp: AuditStamp,
  action: AuditAction,
  bizTag: string,
  before: TagRow | undefined,
  after: TagRow | undefined,
): AuditInsert {
  return auditInsert(stamp, action, bizTag, before && auditTagRow(before), after && auditTagRow(after));
}

/** The audit row of a fleet switch: the default before, and after it with how many rows skipped one ID. */
export function fleetSwitchAudit(stamp: AuditStamp, { before, after }: SwitchPlan, bumped: number): AuditInsert {
  return auditInsert(stamp, 'fleet.semantics', null, { semantics: before }, { semantics: after, bumped });
}

/** The audit row of a tag switch: the tag's row before and after (the bump), each with its effective semantics. */
export function tagSwitchAudit(
  stamp: AuditStamp,
  { before, after }: SwitchPlan,
  rowBefore: TagRow,
  rowAfter: TagRow,
  bumped: number,
): AuditInsert {
  return auditInsert(
    stamp,
    'tag.semantics',
    rowBefore.bizTag,
    { ...auditTagRow(rowBefore), semantics: before },
    { ...auditTagRow(rowAfter), semantics: after, bumped },
  );
}
