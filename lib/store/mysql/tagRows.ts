import type { TagRow } from '../../segment/tagStore';
import { exactId } from '../exactId';
import type { leafAlloc } from '../schema/mysql';
import { type Tx, raw } from '../serverExecutor';
import type { RawRow } from './sql';

export type AllocRow = RawRow<typeof leafAlloc>;

export function toTagRow(r: AllocRow): TagRow {
  return {
    bizTag: r.biz_tag,
    maxId: exactId(r.max_id, r.biz_tag),
    step: r.step,
    description: r.description,
    updateTime: r.update_time,
  };
}

/** The tag's row, locked until the transaction ends; undefined when there is none. */
export async function lockTagRow(tx: Tx, bizTag: string): Promise<TagRow | undefined> {
  const [row] = await tx<AllocRow[]>(raw('SELECT * FROM `leaf_alloc` WHERE biz_tag = ? FOR UPDATE', [bizTag]));
  return row === undefined ? undefined : toTagRow(row);
}
