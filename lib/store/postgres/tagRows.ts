import type { TagRow } from '../../segment/tagStore';
import { type RawAllocRow, tagFromRaw } from '../serverRows';
import { type Tx, raw } from '../serverExecutor';
import type { PgResult } from './executor';

export type AllocRow = RawAllocRow;
export const toTagRow = tagFromRaw;

/** The tag's row, locked until the transaction ends; undefined when there is none. */
export async function lockTagRow(tx: Tx, bizTag: string): Promise<TagRow | undefined> {
  const { rows } = await tx<PgResult<AllocRow>>(
    raw('SELECT * FROM leaf_alloc WHERE biz_tag = $1 FOR UPDATE', [bizTag]),
  );
  return rows[0] === undefined ? undefined : toTagRow(rows[0]);
}
