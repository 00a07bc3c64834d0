import { LeafError } from '../errors';
import type { Id } from '../segment/id';

/** The refusals both stores give for admin edits that could hand out an ID twice. */
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
