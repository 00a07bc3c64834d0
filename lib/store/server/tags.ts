import { sql } from 'drizzle-orm';
import type { AuditAction, AuditStamp } from '../../audit';
import { LeafError, tagNotFound } from '../../errors';
import { type Id, idBigint } from '../../segment/id';
import type { Allocation, TagInfo } from '../../segment/segmentSource';
import type { NewTag, TagChanges, TagPageQuery, TagRow, TagStore } from '../../segment/tagStore';
import { exactId } from '../exactId';
import type { ClaimNote } from '../../claims/claimNote';
import type { ServerExecutor, Tx } from '../serverExecutor';
import { auditInsert } from '../rows/audit';
import { deleteOrderSql } from '../rows/order';
import { changeOrdering } from './ordering';
import {
  type RawEncodingRow,
  encodingMap,
  encodingOfRows,
  insertEncodingSql,
  selectAllEncodingsSql,
  selectEncodingSql,
} from '../rows/encoding';
import { type OpaqueEncoding, type TagEncoding, planEncoding, strictOpaqueRefused } from '../../opaque/encoding';
import { type RawAllocRow, tagFromRaw } from '../rows/tags';
import { tagPageCountSql, tagPageRowsSql } from '../rows/tagPage';
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
import { insertAudit } from './audit';
import type { ServerDialect } from './dialect';
import { type Columns, TABLE, assignments } from './query';

/** The tag's row, locked until the transaction ends; undefined when there is none. */
export async function lockTagRow(tx: Tx, bizTag: string): Promise<TagRow | undefined> {
  const { rows } = await tx<RawAllocRow>(sql`SELECT * FROM ${TABLE.alloc} WHERE biz_tag = ${bizTag} FOR UPDATE`);
  return rows[0] === undefined ? undefined : tagFromRaw(rows[0]);
}

/** leaf_alloc on a server: a claim is the dialect's one statement; edits are transactions over the locked row. */
export class ServerTags implements TagStore {
  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {}

  async listTags(): Promise<TagInfo[]> {
    const rows = await this.exec.read<Pick<RawAllocRow, 'biz_tag' | 'step'>>(
      sql`SELECT biz_tag, step FROM ${TABLE.alloc} ORDER BY biz_tag`,
    );
    return rows.map((r) => ({ bizTag: r.biz_tag, step: r.step }));
  }

  async listTagRows(): Promise<TagRow[]> {
    return (await this.exec.read<RawAllocRow>(sql`SELECT * FROM ${TABLE.alloc} ORDER BY biz_tag`)).map(tagFromRaw);
  }

  async tagRowsPage(query: TagPageQuery): Promise<{ rows: TagRow[]; matching: number; total: number }> {
    const [rows, [counted]] = await Promise.all([
      this.exec.read<RawAllocRow>(tagPageRowsSql(query)),
      this.exec.read<{ n: number | string; total: number | string }>(tagPageCountSql(query.q)),
    ]);
    return { rows: rows.map(tagFromRaw), matching: Number(counted?.n ?? 0), total: Number(counted?.total ?? 0) };
  }

  async getTag(bizTag: string): Promise<TagRow | undefined> {
    const [row] = await this.exec.read<RawAllocRow>(sql`SELECT * FROM ${TABLE.alloc} WHERE biz_tag = ${bizTag}`);
    return row === undefined ? undefined : tagFromRaw(row);
  }

  async allocate(bizTag: string, step?: number, note?: ClaimNote): Promise<Allocation> {
    // Without an explicit step, add exactly the row's step as read: the segment's size is what was added.
    const added = step ?? (await this.getTag(bizTag))?.step;
    if (added === undefined) throw tagNotFound(bizTag);
    if (!Number.isSafeInteger(added) || added < 1) throw badStep(bizTag, added);
    // Run again after an unknown outcome: the first claim then counts as taken and its segment is a gap.
    const claimed = await this.claim(bizTag, added, note);
    if (claimed !== undefined) return { bizTag, step: added, ...claimed };
    const row = await this.getTag(bizTag);
    if (row === undefined) throw tagNotFound(bizTag);
    if (row.maxId < 0)
      throw new LeafError('tag_misconfigured', `Tag "${bizTag}" has max_id ${row.maxId}; a claim needs at least 0.`);
    throw idSpaceExhausted(bizTag);
  }

  /** The claim, and with `note` its log row committed with it (lib/claims/). */
  private async claim(bizTag: string, added: number, note: ClaimNote | undefined) {
    const claim =
      note === undefined ? this.dialect.claim(bizTag, added) : this.dialect.claimLogged(bizTag, added, note);
    return claim.decode(await this.exec.write(claim.query, true));
  }

  /** One compare-and-set statement; an unknown outcome is not run again and counts as nothing given back. */
  giveBack(bizTag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean> {
    return this.exec.changedOne(
      sql`UPDATE ${TABLE.alloc} SET max_id = ${idBigint(newMaxId)}, update_time = CURRENT_TIMESTAMP
          WHERE biz_tag = ${bizTag} AND max_id = ${idBigint(claimedMaxId)}`,
      false,
    );
  }

  createTag(
    { bizTag, step, maxId, description = null, ordering, encoding = null }: NewTag,
    audit?: AuditStamp,
  ): Promise<TagRow> {
    if (encoding !== null && ordering === 'strict') return Promise.reject(strictOpaqueRefused(bizTag));
    return this.exec.transaction(async (tx) => {
      const nameLock = this.dialect.nameLock('tag', bizTag);
      if (nameLock !== null) await tx(nameLock);
      // The tombstone locked, so a concurrent delete cannot slip a lower one in.
      const { rows: tomb } = await tx<{ max_id: string }>(
        sql`SELECT max_id FROM ${TABLE.tombstone} WHERE biz_tag = ${bizTag} FOR UPDATE`,
      );
      const tombstoneMax = tomb[0] === undefined ? undefined : exactId(tomb[0].max_id, bizTag);
      const startAt = planCreate({ bizTag, maxId }, tombstoneMax);
      const row = { biz_tag: bizTag, step, max_id: idBigint(startAt), description };
      if ((await tx(this.dialect.insertIgnore(TABLE.alloc, row))).affected === 0) throw tagExists(bizTag);
      // In the same transaction, before anyone can see the tag (the name lock and the row lock order creations).
      const { rows: recorded } = await tx<RawEncodingRow>(selectEncodingSql(bizTag, true));
      const before = recorded.length === 0 ? undefined : encodingOfRows(bizTag, recorded);
      if (planEncoding(bizTag, encoding, before, tombstoneMax !== undefined) === 'insert' && encoding !== null) {
        await tx(insertEncodingSql(bizTag, encoding));
        if (audit !== undefined)
          await insertAudit(
            tx,
            auditInsert(audit, 'tag.encoding', bizTag, undefined, {
              encoding: encoding.encoding,
              keyId: encoding.keyId,
            }),
          );
      }
      if (tombstoneMax !== undefined) await tx(sql`DELETE FROM ${TABLE.tombstone} WHERE biz_tag = ${bizTag}`);
      const after = (await lockTagRow(tx, bizTag)) as TagRow;
      await record(tx, audit, 'tag.create', bizTag, undefined, after);
      // In the same transaction: no node can see the tag without its ordering (a row left by hand goes back to none).
      const change = await changeOrdering(tx, this.dialect, bizTag, ordering ?? 'none');
      if (audit !== undefined && change.before !== change.after)
        await insertAudit(
          tx,
          auditInsert(audit, 'tag.ordering', bizTag, { ordering: change.before }, { ordering: change.after }),
        );
      return after;
    });
  }

  updateTag(bizTag: string, changes: TagChanges, audit?: AuditStamp): Promise<TagRow> {
    return this.editRow(bizTag, 'tag.edit', audit, () => ({ ...planEdit(changes) }));
  }

  /** FOR UPDATE: no claim can move max_id between the check and the update. */
  raiseMaxId(bizTag: string, maxId: Id, audit?: AuditStamp): Promise<TagRow> {
    return this.editRow(bizTag, 'tag.raise', audit, (before) => ({ max_id: idBigint(planRaise(before, maxId)) }));
  }

  deleteTag(bizTag: string, audit?: AuditStamp): Promise<{ maxId: Id }> {
    return this.exec.transaction(async (tx) => {
      const nameLock = this.dialect.nameLock('tag', bizTag);
      if (nameLock !== null) await tx(nameLock);
      const before = existingTag(bizTag, await lockTagRow(tx, bizTag));
      const maxId = before.maxId;
      await tx(
        this.dialect.upsert(
          TABLE.tombstone,
          { biz_tag: bizTag, max_id: idBigint(maxId) },
          ['biz_tag'],
          (current, incoming) => ({
            max_id: sql`GREATEST(${current('max_id')}, ${incoming('max_id')})`,
            deleted_at: sql`CURRENT_TIMESTAMP`,
          }),
        ),
      );
      await tx(sql`DELETE FROM ${TABLE.alloc} WHERE biz_tag = ${bizTag}`);
      await tx(deleteOrderSql(bizTag)); // its ordering goes too: the name created again starts ordinary
      await record(tx, audit, 'tag.delete', bizTag, before, undefined);
      return { maxId };
    });
  }

  async listEncodings(): Promise<Map<string, OpaqueEncoding>> {
    return encodingMap(await this.exec.read<RawEncodingRow & { biz_tag: string }>(selectAllEncodingsSql()));
  }

  async getEncoding(bizTag: string): Promise<TagEncoding> {
    return encodingOfRows(bizTag, await this.exec.read<RawEncodingRow>(selectEncodingSql(bizTag, false)));
  }

  async getTombstone(bizTag: string): Promise<{ maxId: Id } | undefined> {
    const [row] = await this.exec.read<{ max_id: string }>(
      sql`SELECT max_id FROM ${TABLE.tombstone} WHERE biz_tag = ${bizTag}`,
    );
    return row === undefined ? undefined : { maxId: exactId(row.max_id, bizTag) };
  }

  /** One transaction: the row locked (tag_not_found), the columns `set` plans from it, the row again, the audit row. */
  private editRow(
    bizTag: string,
    action: AuditAction,
    audit: AuditStamp | undefined,
    set: (before: TagRow) => Columns,
  ): Promise<TagRow> {
    return this.exec.transaction(async (tx) => {
      const before = existingTag(bizTag, await lockTagRow(tx, bizTag));
      const columns = { ...set(before), update_time: sql`CURRENT_TIMESTAMP` };
      await tx(sql`UPDATE ${TABLE.alloc} SET ${assignments(columns)} WHERE biz_tag = ${bizTag}`);
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
