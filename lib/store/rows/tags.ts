/** leaf_alloc rows as the server drivers read them (SQLite's repository reads its own: sqlite/tagRows.ts). */
import type { TagRow } from '../../segment/tagStore';
import { exactId } from '../exactId';

export interface RawAllocRow {
  biz_tag: string;
  max_id: string;
  step: number;
  description: string | null;
  update_time: Date;
}

export function tagFromRaw(r: RawAllocRow): TagRow {
  return {
    bizTag: r.biz_tag,
    maxId: exactId(r.max_id, r.biz_tag),
    step: r.step,
    description: r.description,
    updateTime: r.update_time,
  };
}
