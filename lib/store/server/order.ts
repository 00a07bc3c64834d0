import { sql } from 'drizzle-orm';
import type { AuditStamp } from '../../audit';
import type { LeaseTerms, OrderRead, OrderStore, Ordering, OwnerClaim } from '../../ordered/orderStore';
import { auditInsert } from '../rows/audit';
import {
  type RawOrderRow,
  acquireOwnerSql,
  deleteStrictSql,
  insertStrictSql,
  orderFromRaw,
  releaseOwnerSql,
  renewOwnerSql,
  selectNow,
  selectOrderRows,
} from '../rows/order';
import type { ServerExecutor } from '../serverExecutor';
import { existingTag } from '../tagRules';
import { insertAudit } from './audit';
import type { ServerDialect } from './dialect';
import { TABLE } from './query';
import { lockTagRow } from './tags';

/** leaf_order on a server: the lease's writes are single conditional statements on the database clock. */
export class ServerOrder implements OrderStore {
  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {}

  async readOrder(): Promise<OrderRead> {
    const [rows, now] = await Promise.all([
      this.exec.read<RawOrderRow>(selectOrderRows()),
      this.exec.read<{ db_now: number | string }>(selectNow(this.dialect.nowMs)),
    ]);
    return { rows: rows.map(orderFromRaw), dbNowMs: Number(now[0]?.db_now) };
  }

  setOrdering(bizTag: string, ordering: Ordering, audit?: AuditStamp): Promise<{ before: Ordering; after: Ordering }> {
    return this.exec.transaction(async (tx) => {
      existingTag(bizTag, await lockTagRow(tx, bizTag));
      const { rows } = await tx(sql`SELECT biz_tag FROM ${TABLE.order} WHERE biz_tag = ${bizTag} FOR UPDATE`);
      const before: Ordering = rows.length === 0 ? 'none' : 'strict';
      if (before === ordering) return { before, after: ordering };
      await tx(ordering === 'strict' ? insertStrictSql(this.dialect.nowMs, bizTag) : deleteStrictSql(bizTag));
      if (audit !== undefined)
        await insertAudit(tx, auditInsert(audit, 'tag.ordering', bizTag, { ordering: before }, { ordering }));
      return { before, after: ordering };
    });
  }

  acquireOwner(bizTag: string, claim: OwnerClaim, terms: LeaseTerms, seenEpoch: number): Promise<boolean> {
    // Not run again after an unknown outcome: the row would be at the new epoch and say no; the next poll finds
    // this instance named and takes the epoch after.
    return this.exec.changedOne(acquireOwnerSql(this.dialect.nowMs, bizTag, claim, terms, seenEpoch), false);
  }

  renewOwner(bizTag: string, instanceId: string, epoch: number, leaseMs: number): Promise<boolean> {
    // Idempotent (same instance and epoch), so retried on another host too; only an answered renewal counts.
    return this.exec.changedOne(renewOwnerSql(this.dialect.nowMs, bizTag, instanceId, epoch, leaseMs), true);
  }

  async releaseOwner(bizTag: string, instanceId: string, epoch: number): Promise<void> {
    await this.exec.write(releaseOwnerSql(bizTag, instanceId, epoch), true);
  }
}
