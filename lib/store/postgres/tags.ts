import { type SQL, and, asc, eq, sql } from 'drizzle-orm';
import type { NewTag, TagChanges, TagRow, TagStore } from '../../segment/tagStore';
import type { AuditAction, AuditStamp } from '../../audit';
import { LeafError, tagNotFound } from '../../errors';
import { type Id, idBigint } from '../../segment/id';
import type { Allocation, TagInfo } from '../../segment/segmentSource';
import { exactId } from '../exactId';
import { leafAlloc, leafAllocTombstone } from '../schema/postgres';
import {
  badStep,
  existingTag,
  idSpaceExhausted,
  planCreate,
  planEdit,
  planRaise,
  tagAudit,
  tagExists,
} from '../tagRules';
import { type ServerExecutor, type Tx, raw } from '../serverExecutor';
import { type ClaimRow, claimStatement, decodeClaim } from './claim';
import type { PgResult } from './executor';
import { bigintParam, db, insertAudit, type RawRow } from './sql';
import { type AllocRow, lockTagRow, toTagRow } from './tagRows';

type TombstoneRow = RawRow<typeof leafAllocTombstone>;

/** The advisory-lock class of a tag's name (two-int form: apart from the migration lock's one-bigint key). */
const TAG_NAME_LOCK = 0x1eaf;

/**
 * leaf_alloc on PostgreSQL. A claim is claim.ts's one statement (the UPDATE … RETURNING, then the semantics under its
 * row lock, inside leaf_ts_claim): its segment comes from its own answer, never from a later read. The admin edits run tagRules.ts in
 * transactions over the row locked FOR UPDATE; an unknown outcome of their COMMIT is not retried (the audit row would
 * be written twice): the caller gets store_unavailable and may look and repeat.
 */
export class PostgresTags implements TagStore {
  constructor(private readonly exec: ServerExecutor) {}

  async listTags(): Promise<TagInfo[]> {
    const rows = await this.exec.read<Array<Pick<AllocRow, 'biz_tag' | 'step'>>>(
      db.select({ bizTag: leafAlloc.bizTag, step: leafAlloc.step }).from(leafAlloc).orderBy(asc(leafAlloc.bizTag)),
    );
    return rows.map((r) => ({ bizTag: r.biz_tag, step: r.step }));
  }

  async listTagRows(): Promise<TagRow[]> {
    const rows = await this.exec.read<AllocRow[]>(db.select().from(leafAlloc).orderBy(asc(leafAlloc.bizTag)));
    return rows.map(toTagRow);
  }

  async getTag(bizTag: string): Promise<TagRow | undefined> {
    const rows = await this.exec.read<AllocRow[]>(db.select().from(leafAlloc).where(eq(leafAlloc.bizTag, bizTag)));
    return rows[0] === undefined ? undefined : toTagRow(rows[0]);
  }

  async allocate(bizTag: string, step?: number): Promise<Allocation> {
    // Without an explicit step, read the row's step first and add exactly that: the segment's size is what we
    // added, even if an operator changes the step in between.
    const added = step ?? (await this.getTag(bizTag))?.step;
    if (added === undefined) throw tagNotFound(bizTag);
    if (!Number.isSafeInteger(added) || added < 1) throw badStep(bizTag, added);
    // Run again after an unknown outcome (retryUnknown): the first claim then counts as taken and its segment is a
    // gap. The segment comes only from this claim's own answer, never from a later read of max_id (see retry.ts).
    const claim = decodeClaim(
      (await this.exec.write<PgResult<ClaimRow>>(claimStatement(bizTag, added), true)).rows,
      bizTag,
    );
    if (claim !== undefined) return { bizTag, step: added, ...claim };
    const row = await this.getTag(bizTag);
    if (row === undefined) throw tagNotFound(bizTag);
    if (row.maxId < 0)
      throw new LeafError(
        'tag_misconfigured',
        `Tag "${bizTag}" has max_id ${row.maxId}; a claim needs max_id of at least 0.`,
      );
    throw idSpaceExhausted(bizTag);
  }

  /** One compare-and-set statement; an unknown outcome is not run again and counts as nothing given back. */
  giveBack(bizTag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean> {
    return this.exec.changedOne(
      db
        .update(leafAlloc)
        .set({ maxId: bigintParam(newMaxId), updateTime: sql`CURRENT_TIMESTAMP` })
        .where(and(eq(leafAlloc.bizTag, bizTag), eq(leafAlloc.maxId, bigintParam(claimedMaxId)))),
      false,
    );
  }

  createTag({ bizTag, step, maxId, description = null }: NewTag, audit?: AuditStamp): Promise<TagRow> {
    return this.exec.transaction(async (tx) => {
      // A lock on the name, which deleteTag takes too: FOR UPDATE locks no row that is not there yet, so without it a
      // delete committing meanwhile could leave a tombstone above the max_id this create writes.
      await tx(raw('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TAG_NAME_LOCK, bizTag]));
      const tomb = await tx<PgResult<Pick<TombstoneRow, 'max_id'>>>(
        raw('SELECT max_id FROM leaf_alloc_tombstone WHERE biz_tag = $1 FOR UPDATE', [bizTag]),
      );
      const tombstoneMax = tomb.rows[0] === undefined ? undefined : exactId(tomb.rows[0].max_id, bizTag);
      const startAt = planCreate({ bizTag, maxId }, tombstoneMax);
      const inserted = await tx<PgResult>(
        db
          .insert(leafAlloc)
          .values({ bizTag, step, maxId: bigintParam(startAt), description })
          .onConflictDoNothing(),
      );
      if (inserted.rowCount === 0) throw tagExists(bizTag);
      if (tombstoneMax !== undefined) await tx(raw('DELETE FROM leaf_alloc_tombstone WHERE biz_tag = $1', [bizTag]));
      const after = (await lockTagRow(tx, bizTag)) as TagRow;
      await record(tx, audit, 'tag.create', bizTag, undefined, after);
      return after;
    });
  }

  updateTag(bizTag: string, changes: TagChanges, audit?: AuditStamp): Promise<TagRow> {
    return this.editRow(bizTag, 'tag.edit', audit, () => planEdit(changes));
  }

  /** FOR UPDATE: no claim can move max_id between the check and the update. */
  raiseMaxId(bizTag: string, maxId: Id, audit?: AuditStamp): Promise<TagRow> {
    return this.editRow(bizTag, 'tag.raise', audit, (before) => ({ maxId: bigintParam(planRaise(before, maxId)) }));
  }

  deleteTag(bizTag: string, audit?: AuditStamp): Promise<{ maxId: Id }> {
    return this.exec.transaction(async (tx) => {
      await tx(raw('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TAG_NAME_LOCK, bizTag]));
      const before = existingTag(bizTag, await lockTagRow(tx, bizTag));
      const maxId = before.maxId;
      await tx(
        raw(
          'INSERT INTO leaf_alloc_tombstone (biz_tag, max_id) VALUES ($1, $2) ' +
            'ON CONFLICT (biz_tag) DO UPDATE SET max_id = GREATEST(leaf_alloc_tombstone.max_id, EXCLUDED.max_id), deleted_at = CURRENT_TIMESTAMP',
          [bizTag, idBigint(maxId)],
        ),
      );
      await tx(raw('DELETE FROM leaf_alloc WHERE biz_tag = $1', [bizTag]));
      await record(tx, audit, 'tag.delete', bizTag, before, undefined);
      return { maxId };
    });
  }

  async getTombstone(bizTag: string): Promise<{ maxId: Id } | undefined> {
    const rows = await this.exec.read<Array<Pick<TombstoneRow, 'max_id'>>>(
      db
        .select({ maxId: leafAllocTombstone.maxId })
        .from(leafAllocTombstone)
        .where(eq(leafAllocTombstone.bizTag, bizTag)),
    );
    return rows[0] === undefined ? undefined : { maxId: exactId(rows[0].max_id, bizTag) };
  }

  /** One transaction: the row locked (tag_not_found), the columns `set` plans from it, the row again, the audit row. */
  private editRow(
    bizTag: string,
    action: AuditAction,
    audit: AuditStamp | undefined,
    set: (before: TagRow) => TagChanges & { maxId?: SQL },
  ): Promise<TagRow> {
    return this.exec.transaction(async (tx) => {
      const before = existingTag(bizTag, await lockTagRow(tx, bizTag));
      await tx(
        db
          .update(leafAlloc)
          .set({ ...set(before), updateTime: sql`CURRENT_TIMESTAMP` })
          .where(eq(leafAlloc.bizTag, bizTag)),
      );
      const after = (await lockTagRow(tx, bizTag)) as TagRow;
      await record(tx, audit, action, bizTag, before, after);
      return after;
    });
  }
}

/** The change's leaf_audit row, in its transaction, when it is audited. */
async function record(
  tx: Tx,
  audit: AuditStamp | undefined,
  action: AuditAction,
  bizTag: string,
  before: TagRow | undefined,
  after: TagRow | undefined,
): Promise<void> {
  if (audit !== undefined) await insertAudit(tx, tagAudit(audit, action, bizTag, before, after));
}
