import type { TagRow } from '../../segment/tagStore';
import { exactId } from '../exactId';
import type { leafAlloc } from '../schema/postgres';
import { type Tx, raw } from '../serverExecutor';
import type { PgResult } from './executor';
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
  const { rows } = await tx<PgResult<AllocRow>>(raw('SELECT * FROM leaf_alloc WHERE biz_tag = $1 FOR UPDATE', [bizTag]));
  return rows[0] === undefined ? undefined : toTagRow(rows[0]);
}
