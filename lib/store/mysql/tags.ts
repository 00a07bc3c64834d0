import { type SQL, and, asc, eq, sql } from 'drizzle-orm';
import type { ResultSetHeader } from 'mysql2/promise';
import type { NewTag, TagChanges, TagRow, TagStore } from '../../segment/tagStore';
import type { AuditAction, AuditStamp } from '../../audit';
import { LeafError, tagNotFound } from '../../errors';
import { type Id, idBigint } from '../../segment/id';
import type { Allocation, TagInfo } from '../../segment/segmentSource';
import { exactId } from '../exactId';
import { leafAlloc, leafAllocTombstone } from '../schema/mysql';
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
import { claimStatement, decodeClaim } from './claim';
import { type ServerExecutor, type Tx, raw } from '../serverExecutor';
import { bigintParam, db, insertAudit, type RawRow } from './sql';
import { type AllocRow, lockTagRow, toTagRow } from './tagRows';

type TombstoneRow = RawRow<typeof leafAllocTombstone>;

/**
 * leaf_alloc on MySQL/MariaDB/Galera. A claim is one statement, `UPDATE … SET max_id = LAST_INSERT_ID(max_id + ?)`
 * (claim.ts), atomic under InnoDB's row lock (and Galera's certification), whose OK packet carries the new max_id:
 * one round trip per segment. The admin edits run tagRules.ts in transactions over the row locked FOR UPDATE; like
 * create and delete, an unknown outcome of their COMMIT is not retried (the audit row would be written twice): the
 * caller gets store_unavailable and may look and repeat.
 */
export class MysqlTags implements TagStore {
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
    // A claim whose outcome is unknown may be claimed again (retryUnknown): the first one then counts as taken and
    // its segment is a gap. The segment comes only from the OK packet of the claim that answered — never from a
    // later read of max_id, which could include another node's claim (see retry.ts). The same statement reads the
    // tag's semantics (claim.ts: why a switch cannot fall between, and how both come back in it).
    const header = await this.exec.write<ResultSetHeader>(claimStatement(bizTag, added), true);
    // affectedRows 0 leaves LAST_INSERT_ID stale: never read insertId then. The read below only names the refusal.
    if (header.affectedRows === 1) return { bizTag, step: added, ...decodeClaim(header.insertId, bizTag) };
    const row = await this.getTag(bizTag);
    if (row === undefined) throw tagNotFound(bizTag);
    if (row.maxId < 0)
      throw new LeafError(
        'tag_misconfigured',
        `Tag "${bizTag}" has max_id ${row.maxId}; a claim needs max_id of at least 0.`,
      );
    throw idSpaceExhausted(bizTag);
  }

  /**
   * One statement, so Galera certifies it alone: a certification failure (1213) or an unknown outcome is not run
   * again and counts as nothing given back (a late commit of it is still safe: see SegmentSource.giveBack).
   */
  giveBack(bizTag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean> {
    return this.exec.changedOne(
      db
        .update(leafAlloc)
        .set({ maxId: bigintParam(newMaxId) })
        .where(and(eq(leafAlloc.bizTag, bizTag), eq(leafAlloc.maxId, bigintParam(claimedMaxId)))),
      false,
    );
  }

  createTag({ bizTag, step, maxId, description = null }: NewTag, audit?: AuditStamp): Promise<TagRow> {
    return this.exec.transaction(async (tx) => {
      // FOR UPDATE locks the tombstone (or its gap), so a concurrent delete cannot slip a lower row in.
      const [tomb] = await tx<Array<Pick<TombstoneRow, 'max_id'>>>(
        raw('SELECT max_id FROM `leaf_alloc_tombstone` WHERE biz_tag = ? FOR UPDATE', [bizTag]),
      );
      const tombstoneMax = tomb === undefined ? undefined : exactId(tomb.max_id, bizTag);
      const startAt = planCreate({ bizTag, maxId }, tombstoneMax);
      const header = await tx<ResultSetHeader>(
        db
          .insert(leafAlloc)
          .ignore()
          .values({ bizTag, step, maxId: bigintParam(startAt), description }),
      );
      if (header.affectedRows === 0) throw tagExists(bizTag);
      if (tombstoneMax !== undefined) await tx(raw('DELETE FROM `leaf_alloc_tombstone` WHERE biz_tag = ?', [bizTag]));
      const after = (await lockTagRow(tx, bizTag)) as TagRow;
      await record(tx, audit, 'tag.create', bizTag, undefined, after);
      return after;
    });
  }

  /** A transaction (row locked, change, row read again, audit row, commit), so the audit row commits with the change or not at all. */
  updateTag(bizTag: string, changes: TagChanges, audit?: AuditStamp): Promise<TagRow> {
    return this.editRow(bizTag, 'tag.edit', audit, () => ({
      ...planEdit(changes),
      updateTime: sql`CURRENT_TIMESTAMP`,
    }));
  }

  /**
   * FOR UPDATE: no claim can move max_id between the check and the update (a Galera claim on another node that
   * commits first makes this transaction fail certification, and it is run again, check included).
   */
  raiseMaxId(bizTag: string, maxId: Id, audit?: AuditStamp): Promise<TagRow> {
    return this.editRow(bizTag, 'tag.raise', audit, (before) => ({ maxId: bigintParam(planRaise(before, maxId)) }));
  }

  deleteTag(bizTag: string, audit?: AuditStamp): Promise<{ maxId: Id }> {
    return this.exec.transaction(async (tx) => {
      const before = existingTag(bizTag, await lockTagRow(tx, bizTag));
      const maxId = before.maxId;
      await tx(
        raw(
          'INSERT INTO `leaf_alloc_tombstone` (biz_tag, max_id) VALUES (?, ?) ' +
            'ON DUPLICATE KEY UPDATE max_id = GREATEST(max_id, VALUES(max_id)), deleted_at = CURRENT_TIMESTAMP',
          [bizTag, idBigint(maxId)],
        ),
      );
      await tx(raw('DELETE FROM `leaf_alloc` WHERE biz_tag = ?', [bizTag]));
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
    set: (before: TagRow) => TagChanges & { maxId?: SQL; updateTime?: SQL },
  ): Promise<TagRow> {
    return this.exec.transaction(async (tx) => {
      const before = existingTag(bizTag, await lockTagRow(tx, bizTag));
      await tx(db.update(leafAlloc).set(set(before)).where(eq(leafAlloc.bizTag, bizTag)));
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
