import type { AuditStamp } from '../audit';
import type { Id } from './id';
import type { SegmentSource } from './segmentSource';

/** A leaf_alloc row as the console shows it. */
export interface TagRow {
  bizTag: string;
  /** Exact: a number up to 2^53−1, a bigint above (lib/segment/id.ts). */
  maxId: Id;
  /** The step stored in the row: the first load's step and the floor for dynamic steps. */
  step: number;
  description: string | null;
  updateTime: Date;
}

export interface NewTag {
  bizTag: string;
  step: number;
  /** Highest ID already used by an older scheme; the first segment starts above it. Default 1, as Leaf. */
  maxId?: Id;
  description?: string | null;
}

export interface TagChanges {
  step?: number;
  description?: string | null;
}

/**
 * leaf_alloc: the segment engine's claims (SegmentSource, its port) and the console's edits of the rows (the admin
 * API's port, declared here beside the engine's, since both are the segment mode's one table). The edits keep the
 * tag rules (lib/store/tagRules.ts). With `audit`, each change writes its leaf_audit row (before and after) in the
 * same transaction: a change without its audit row cannot commit, and a refused change writes none.
 */
export interface TagStore extends SegmentSource {
  /** Full rows, for the console. */
  listTagRows(): Promise<TagRow[]>;
  getTag(bizTag: string): Promise<TagRow | undefined>;
  /**
   * Inserts a tag. A deleted tag's tombstone is honoured: without `maxId` the new row continues at the old
   * max_id; a lower `maxId` is refused (`max_id_below_tombstone`). `tag_exists` when the row is there.
   */
  createTag(tag: NewTag, audit?: AuditStamp): Promise<TagRow>;
  /** `tag_not_found` when missing. */
  updateTag(bizTag: string, changes: TagChanges, audit?: AuditStamp): Promise<TagRow>;
  /** Raises max_id (never lowers it: `max_id_lowered`, which would hand out IDs again). */
  raiseMaxId(bizTag: string, maxId: Id, audit?: AuditStamp): Promise<TagRow>;
  /** Deletes the row and leaves a tombstone with its max_id, in one transaction. */
  deleteTag(bizTag: string, audit?: AuditStamp): Promise<{ maxId: Id }>;
  getTombstone(bizTag: string): Promise<{ maxId: Id } | undefined>;
}
