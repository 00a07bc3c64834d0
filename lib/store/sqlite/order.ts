import { eq } from 'drizzle-orm';
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
import { leafOrder } from '../schema/sqlite';
import { existingTag } from '../tagRules';
import type { SqliteExecutor } from './executor';
import { DB_NOW_MS, insertAudit } from './sql';
import { readTagRow } from './tagRows';

/** leaf_order on SQLite: the same statements as on a server, atomic under SQLite's write lock. */
export class SqliteOrder implements OrderStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async readOrder(): Promise<OrderRead> {
    return this.exec.read((db) => ({
      rows: db.all<RawOrderRow>(selectOrderRows()).map(orderFromRaw),
      dbNowMs: Number(db.get<{ db_now: number }>(selectNow(DB_NOW_MS))?.db_now),
    }));
  }

  async setOrdering(
    bizTag: string,
    ordering: Ordering,
    audit?: AuditStamp,
  ): Promise<{ before: Ordering; after: Ordering }> {
    return this.exec.transaction((db) => {
      existingTag(bizTag, readTagRow(db, bizTag));
      const held = db.select({ bizTag: leafOrder.bizTag }).from(leafOrder).where(eq(leafOrder.bizTag, bizTag)).get();
      const before: Ordering = held === undefined ? 'none' : 'strict';
      if (before === ordering) return { before, after: ordering };
      db.run(ordering === 'strict' ? insertStrictSql(DB_NOW_MS, bizTag) : deleteStrictSql(bizTag));
      if (audit !== undefined)
        insertAudit(db, auditInsert(audit, 'tag.ordering', bizTag, { ordering: before }, { ordering }));
      return { before, after: ordering };
    });
  }

  async acquireOwner(bizTag: string, claim: OwnerClaim, terms: LeaseTerms, seenEpoch: number): Promise<boolean> {
    return this.exec.changedOne((db) => db.run(acquireOwnerSql(DB_NOW_MS, bizTag, claim, terms, seenEpoch)));
  }

  async renewOwner(bizTag: string, instanceId: string, epoch: number, leaseMs: number): Promise<boolean> {
    return this.exec.changedOne((db) => db.run(renewOwnerSql(DB_NOW_MS, bizTag, instanceId, epoch, leaseMs)));
  }

  async releaseOwner(bizTag: string, instanceId: string, epoch: number): Promise<void> {
    this.exec.write((db) => db.run(releaseOwnerSql(bizTag, instanceId, epoch)));
  }
}
