import { type Id, MAX_ID } from '../../segment/id';
import { DEFAULT_SEMANTICS, FLEET_DEFAULT_KEY, type Semantics, storedSemantics } from '../../segment/semantics';
import { exactId } from '../exactId';
import { type Tx, raw } from '../serverExecutor';
import type { PgResult } from './executor';

/**
 * The segment claim on PostgreSQL: one transaction of two statements. The UPDATE … RETURNING takes the tag's row
 * (max_id + `added`, kept within 0..2^63−1 by its WHERE) and answers the new max_id; then, holding that row's lock,
 * a second statement reads the tag's semantics. Not one statement: a subquery of the UPDATE (or of a CTE around it)
 * reads the statement's starting snapshot, so a claim that waited on the row lock of a semantics switch would get the
 * switch's bumped max_id but the OLD semantics — a wrong owned range, duplicate IDs. Under READ COMMITTED the second
 * statement takes a fresh snapshot, which holds every switch that committed before the row lock was ours; a switch
 * after it waits for our commit (it locks the leaf_alloc rows first, then leaf_semantics: semantics.ts).
 */
export async function claimSegment(tx: Tx, bizTag: string, added: number): Promise<{ maxId: Id; semantics: Semantics } | undefined> {
  const claimed = await tx<PgResult<{ max_id: string }>>(
    raw('UPDATE leaf_alloc SET max_id = max_id + $1, update_time = CURRENT_TIMESTAMP WHERE biz_tag = $2 AND max_id BETWEEN 0 AND $3 RETURNING max_id', [
      added,
      bizTag,
      MAX_ID - BigInt(added),
    ]),
  );
  if (claimed.rows.length !== 1) return undefined;
  const read = await tx<PgResult<{ semantics: string }>>(
    raw(
      'SELECT COALESCE((SELECT s.semantics FROM leaf_semantics s WHERE s.biz_tag = $1), (SELECT d.semantics FROM leaf_semantics d WHERE d.biz_tag = $2), $3) AS semantics',
      [bizTag, FLEET_DEFAULT_KEY, DEFAULT_SEMANTICS],
    ),
  );
  return { maxId: exactId(claimed.rows[0].max_id, bizTag), semantics: storedSemantics(read.rows[0]?.semantics) ?? DEFAULT_SEMANTICS };
}
