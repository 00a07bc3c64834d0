import { eq } from 'drizzle-orm';
import type { TagRow } from '../../segment/tagStore';
import type { Id } from '../../segment/id';
import { exactId } from '../exactId';
import { type LeafAllocRow, leafAlloc, leafAllocTombstone } from '../schema/sqlite';
import type { SqliteDb } from './executor';
import { maxIdText } from './sql';

/** leaf_alloc's columns with max_id as text, so it reads exactly. */
export const TAG_COLUMNS = {
  bizTag: leafAlloc.bizTag,
  maxId: maxIdText(leafAlloc.maxId),
  step: leafAlloc.step,
  description: leafAlloc.description,
  updateTime: leafAlloc.updateTime,
};

/** A leaf_alloc row as TAG_COLUMNS selects it. */
type AllocTextRow = Omit<LeafAllocRow, 'maxId'> & { maxId: string };

export function toTagRow(r: AllocTextRow): TagRow {
  return {
    bizTag: r.bizTag,
    maxId: exactId(r.maxId, r.bizTag),
    step: r.step,
    description: r.description,
    updateTime: new Date(r.updateTime.replace(' ', 'T') + 'Z'),
  };
}

/** The tag's row; synchronous, so a transaction reads it before and after its change. */
export function readTagRow(db: SqliteDb, bizTag: string): TagRow | undefined {
  const row = db.select(TAG_COLUMNS).from(leafAlloc).where(eq(leafAlloc.bizTag, bizTag)).get();
  return row === undefined ? undefined : toTagRow(row);
}

export function readTombstone(db: SqliteDb, bizTag: string): { maxId: Id } | undefined {
  const row = db
    .select({ maxId: maxIdText(leafAllocTombstone.maxId) })
    .from(leafAllocTombstone)
    .where(eq(leafAllocTombstone.bizTag, bizTag))
    .get();
  return row === undefined ? undefined : { maxId: exactId(row.maxId, bizTag) };
}
