import type { TagRow } from '../../segment/tagStore';
import { type RawAllocRow, tagFromRaw } from '../serverRows';
import { type Tx, raw } from '../serverExecutor';

export type AllocRow = RawAllocRow;
export const toTagRow = tagFromRaw;

/** The tag's row, locked until the transaction ends; undefined when there is none. */
export async function lockTagRow(tx: Tx, bizTag: string): Promise<TagRow | undefined> {
  const [row] = await tx<AllocRow[]>(raw('SELECT * FROM `leaf_alloc` WHERE biz_tag = ? FOR UPDATE', [bizTag]));
  return row === undefined ? undefined : toTagRow(row);
}
