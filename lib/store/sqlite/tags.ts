import { type SQL, and, asc, desc, eq, gte, lte, sql } from 'drizzle-orm';
import { tagPageCountSql, tagPageWhere } from '../rows/tagPage';
import type { NewTag, TagChanges, TagPageQuery, TagRow, TagStore } from '../../segment/tagStore';
import type { AuditAction, AuditStamp } from '../../audit';
import { tagNotFound } from '../../errors';
import { type Id, MAX_ID } from '../../segment/id';
import type { Allocation, TagInfo } from '../../segment/segmentSource';
import { exactId } from '../exactId';
import { auditInsert } from '../rows/audit';
import { deleteOrderSql } from '../rows/order';
import {
  type RawEncodingRow,
  encodingMap,
  encodingOfRows,
  insertEncodingSql,
  selectAllEncodingsSql,
  selectEncodingSql,
} from '../rows/encoding';
import { type OpaqueEncoding, type TagEncoding, planEncoding, strictOpaqueRefused } from '../../opaque/encoding';
import { leafAlloc, leafAllocTombstone } from '../schema/sqlite';
import { changeOrdering } from './ordering';
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
import type { SqliteDb, SqliteExecutor } from './executor';
import { effectiveSemantics } from './semantics';
import { insertClaimRow } from './claimLog';
import type { ClaimNote } from '../../claims/claimNote';
import { claimedRange } from '../../segment/semantics';
import { bigintParam, insertAudit, maxIdText } from './sql';
import { TAG_COLUMNS, readTagRow, readTombstone, toTagRow } from './tagRows';

/** leaf_alloc on SQLite: a claim is one UPDATE … RETURNING with its semantics read, under the write lock. */
export class SqliteTags implements TagStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async listTags(): Promise<TagInfo[]> {
    return this.exec.read((db) =>
      db
        .select({ bizTag: leafAlloc.bizTag, step: leafAlloc.step })
        .from(leafAlloc)
        .orderBy(asc(leafAlloc.bizTag))
        .all(),
    );
  }

  async listTagRows(): Promise<TagRow[]> {
    return this.exec
      .read((db) => db.select(TAG_COLUMNS).from(leafAlloc).orderBy(asc(leafAlloc.bizTag)).all())
      .map(toTagRow);
  }

  async tagRowsPage(query: TagPageQuery): Promise<{ rows: TagRow[]; matching: number; total: number }> {
    return this.exec.read((db) => {
      const where = tagPageWhere(query.q);
      const rows = db
        .select(TAG_COLUMNS)
        .from(leafAlloc)
        .where(where)
        .orderBy(query.descending ? desc(leafAlloc.bizTag) : asc(leafAlloc.bizTag))
        .limit(query.limit)
        .offset(query.offset)
        .all()
        .map(toTagRow);
      const counted = db.get<{ n: number; total: number }>(tagPageCountSql(query.q));
      return { rows, matching: Number(counted.n), total: Number(counted.total) };
    });
  }

  async getTag(bizTag: string): Promise<TagRow | undefined> {
    return this.exec.read((db) => readTagRow(db, bizTag));
  }

  async allocate(bizTag: string, step?: number, note?: ClaimNote): Promise<Allocation> {
    if (step !== undefined && (!Number.isSafeInteger(step) || step < 1)) throw badStep(bizTag, step);
    // A bigint parameter: better-sqlite3 binds a JS number as a REAL, and max_id + a REAL is a float beyond 2^53.
    const added = step === undefined ? leafAlloc.step : sql`${BigInt(step)}`;
    // One immediate transaction: the UPDATE, then the tag's semantics, so no switch can fall between them.
    const row = this.exec.transaction((db) => {
      const claimed = db
        .update(leafAlloc)
        .set({ maxId: sql`${leafAlloc.maxId} + ${added}`, updateTime: sql`CURRENT_TIMESTAMP` })
        // The guard keeps max_id within a BIGINT (SQLite would turn an overflowing sum into a float): refused, not
        // rounded. The bound is bound as a bigint, so it is exact.
        .where(
          and(eq(leafAlloc.bizTag, bizTag), gte(leafAlloc.step, 1), lte(leafAlloc.maxId, sql`${MAX_ID} - ${added}`)),
        )
        .returning({ maxId: maxIdText(leafAlloc.maxId), step: leafAlloc.step })
        .get();
      if (claimed === undefined) return undefined;
      const semantics = effectiveSemantics(db, bizTag);
      if (note !== undefined) {
        const { first, last } = claimedRange(BigInt(claimed.maxId), step ?? claimed.step, semantics);
        insertClaimRow(this.exec, { bizTag, first, last, note });
      }
      return { ...claimed, semantics };
    });
    if (row !== undefined)
      return { bizTag, maxId: exactId(row.maxId, bizTag), step: step ?? row.step, semantics: row.semantics };
    const current = await this.getTag(bizTag);
    if (current === undefined) throw tagNotFound(bizTag);
    if (current.step < 1) throw badStep(bizTag, current.step);
    throw idSpaceExhausted(bizTag);
  }

  async giveBack(bizTag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean> {
    const result = this.exec.write((db) =>
      db
        .update(leafAlloc)
        .set({ maxId: bigintParam(newMaxId), updateTime: sql`CURRENT_TIMESTAMP` })
        .where(and(eq(leafAlloc.bizTag, bizTag), eq(leafAlloc.maxId, bigintParam(claimedMaxId))))
        .run(),
    );
    return result.changes === 1;
  }

  async createTag(
    { bizTag, step, maxId, description = null, ordering, encoding = null }: NewTag,
    audit?: AuditStamp,
  ): Promise<TagRow> {
    if (encoding !== null && ordering === 'strict') throw strictOpaqueRefused(bizTag);
    return this.exec.transaction((db) => {
      const tombstone = readTombstone(db, bizTag);
      const startAt = planCreate({ bizTag, maxId }, tombstone?.maxId);
      const inserted = db
        .insert(leafAlloc)
        .values({ bizTag, step, maxId: bigintParam(startAt), description })
        .onConflictDoNothing()
        .run();
      if (inserted.changes === 0) throw tagExists(bizTag);
      // In the same transaction, before anyone can see the tag: its IDs are permuted from the first.
      const recorded = db.all<RawEncodingRow>(selectEncodingSql(bizTag, false));
      const before = recorded.length === 0 ? undefined : encodingOfRows(bizTag, recorded);
      if (planEncoding(bizTag, encoding, before, tombstone !== undefined) === 'insert' && encoding !== null) {
        db.run(insertEncodingSql(bizTag, encoding));
        if (audit !== undefined)
          insertAudit(
            db,
            auditInsert(audit, 'tag.encoding', bizTag, undefined, {
              encoding: encoding.encoding,
              keyId: encoding.keyId,
            }),
          );
      }
      if (tombstone !== undefined) db.delete(leafAllocTombstone).where(eq(leafAllocTombstone.bizTag, bizTag)).run();
      const after = readTagRow(db, bizTag) as TagRow;
      record(db, audit, 'tag.create', bizTag, undefined, after);
      // In the same transaction: no node can see the tag without its ordering (a row left by hand goes back to none).
      const change = changeOrdering(db, bizTag, ordering ?? 'none');
      if (audit !== undefined && change.before !== change.after)
        insertAudit(
          db,
          auditInsert(audit, 'tag.ordering', bizTag, { ordering: change.before }, { ordering: change.after }),
        );
      return after;
    });
  }

  async updateTag(bizTag: string, changes: TagChanges, audit?: AuditStamp): Promise<TagRow> {
    return this.editRow(bizTag, 'tag.edit', audit, () => planEdit(changes));
  }

  async raiseMaxId(bizTag: string, maxId: Id, audit?: AuditStamp): Promise<TagRow> {
    // Under the write lock (immediate) no claim can move max_id between the check and the update.
    return this.editRow(bizTag, 'tag.raise', audit, (before) => ({ maxId: bigintParam(planRaise(before, maxId)) }));
  }

  async deleteTag(bizTag: string, audit?: AuditStamp): Promise<{ maxId: Id }> {
    return this.exec.transaction((db) => {
      const row = existingTag(bizTag, readTagRow(db, bizTag));
      db.insert(leafAllocTombstone)
        .values({ bizTag, maxId: bigintParam(row.maxId) })
        .onConflictDoUpdate({
          target: leafAllocTombstone.bizTag,
          set: { maxId: sql`max(${leafAllocTombstone.maxId}, excluded.max_id)`, deletedAt: sql`CURRENT_TIMESTAMP` },
        })
        .run();
      db.delete(leafAlloc).where(eq(leafAlloc.bizTag, bizTag)).run();
      db.run(deleteOrderSql(bizTag)); // its ordering goes too: the name created again starts ordinary
      record(db, audit, 'tag.delete', bizTag, row, undefined);
      return { maxId: row.maxId };
    });
  }

  async getTombstone(bizTag: string): Promise<{ maxId: Id } | undefined> {
    return this.exec.read((db) => readTombstone(db, bizTag));
  }

  async listEncodings(): Promise<Map<string, OpaqueEncoding>> {
    return encodingMap(this.exec.read((db) => db.all<RawEncodingRow & { biz_tag: string }>(selectAllEncodingsSql())));
  }

  async getEncoding(bizTag: string): Promise<TagEncoding> {
    return encodingOfRows(
      bizTag,
      this.exec.read((db) => db.all<RawEncodingRow>(selectEncodingSql(bizTag, false))),
    );
  }

  /** One immediate transaction: the row (tag_not_found), the columns `set` plans from it, the row again, the audit row. */
  private editRow(
    bizTag: string,
    action: AuditAction,
    audit: AuditStamp | undefined,
    set: (before: TagRow) => TagChanges & { maxId?: SQL },
  ): TagRow {
    return this.exec.transaction((db) => {
      const before = existingTag(bizTag, readTagRow(db, bizTag));
      db.update(leafAlloc)
        .set({ ...set(before), updateTime: sql`CURRENT_TIMESTAMP` })
        .where(eq(leafAlloc.bizTag, bizTag))
        .run();
      const after = readTagRow(db, bizTag) as TagRow;
      record(db, audit, action, bizTag, before, after);
      return after;
    });
  }
}

/** The change's leaf_audit row, in its transaction, when it is audited. */
function record(
  db: SqliteDb,
  audit: AuditStamp | undefined,
  action: AuditAction,
  bizTag: string,
  before: TagRow | undefined,
  after: TagRow | undefined,
): void {
  if (audit !== undefined) insertAudit(db, tagAudit(audit, action, bizTag, before, after));
}
