import type { AuditStamp } from '../audit';
import type { OpaqueEncoding, RequestedOpaque, TagEncoding } from '../opaque/encoding';
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
  /** Strict: its leaf_order row is written in the same transaction (lib/ordered). Default none. */
  ordering?: 'strict' | 'none';
  /** Opaque: its leaf_encoding row is written in the same transaction, and stays with the tombstone. Default plain. */
  encoding?: RequestedOpaque | null;
}

/** A page of the tag list by name (TagStore.tagRowsPage). */
export interface TagPageQuery {
  /** Lower-cased substring of biz_tag or description; '' matches every row. */
  q: string;
  descending: boolean;
  offset: number;
  limit: number;
}

export interface TagChanges {
  step?: number;
  description?: string | null;
}

/** leaf_alloc: the engine's claims and the console's edits, which keep the tag rules and write their audit row. */
export interface TagStore extends SegmentSource {
  /** Full rows, for the console. */
  listTagRows(): Promise<TagRow[]>;
  /** One page by name in the database's order, the rows matching `q`, and all rows: a page's cost, not the table's. */
  tagRowsPage(query: TagPageQuery): Promise<{ rows: TagRow[]; matching: number; total: number }>;
  getTag(bizTag: string): Promise<TagRow | undefined>;
  /** A deleted tag's tombstone is honoured: continues at its max_id, and a lower `maxId` is refused. */
  createTag(tag: NewTag, audit?: AuditStamp): Promise<TagRow>;
  /** `tag_not_found` when missing. */
  updateTag(bizTag: string, changes: TagChanges, audit?: AuditStamp): Promise<TagRow>;
  /** Raises max_id (never lowers it: `max_id_lowered`, which would hand out IDs again). */
  raiseMaxId(bizTag: string, maxId: Id, audit?: AuditStamp): Promise<TagRow>;
  /** Deletes the row and leaves a tombstone with its max_id, in one transaction. */
  deleteTag(bizTag: string, audit?: AuditStamp): Promise<{ maxId: Id }>;
  getTombstone(bizTag: string): Promise<{ maxId: Id } | undefined>;
  /** The tag's encoding (null: plain), also for a deleted tag's name: it never changes. */
  getEncoding(bizTag: string): Promise<TagEncoding>;
  /** Every opaque tag's encoding (deleted names too), by name: the views' column. */
  listEncodings(): Promise<Map<string, OpaqueEncoding>>;
}
