import type { TagRow } from '../../segment/tagStore';
import { exactId } from '../exactId';

/**
 * Shapes of one table's rows: `Raw…Row` as mysql2 and pg answer them (column names, BIGINTs as decimal strings),
 * `…Stored` as drizzle answers SQLite (field names), and the mapper from each to the domain row.
 */

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
