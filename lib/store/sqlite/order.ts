import { sql } from 'drizzle-orm';
import type { AuditStamp } from '../../audit';
import type {
  LeaseTerms,
  NewParticipant,
  OrderRead,
  OrderStore,
  Ordering,
  OrderingChange,
  OwnerClaim,
  ParticipantRead,
} from '../../ordered/orderStore';
import { auditInsert } from '../rows/audit';
import {
  type RawOrderRow,
  type RawParticipantRow,
  VERSION_ROW,
  ackParticipantSql,
  acquireOwnerSql,
  completeStrictSql,
  deleteParticipantSql,
  orderFromRaw,
  participantFromRaw,
  pruneParticipantsSql,
  releaseOwnerSql,
  renewOwnerSql,
  selectNow,
  selectOrderRows,
  selectParticipantsSql,
} from '../rows/order';
import { leafParticipant } from '../schema/sqlite';
import { existingTag } from '../tagRules';
import type { SqliteExecutor } from './executor';
import { changeOrdering } from './ordering';
import { DB_NOW_MS, insertAudit } from './sql';
import { readTagRow } from './tagRows';

/** leaf_order and leaf_participant on SQLite: the same statements as on a server, atomic under SQLite's write lock. */
export class SqliteOrder implements OrderStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async readOrder(): Promise<OrderRead> {
    return this.exec.read((db) => {
      const raw = db.all<RawOrderRow>(selectOrderRows(DB_NOW_MS));
      const dbNowMs = Number(raw[0]?.db_now ?? db.get<{ db_now: number }>(selectNow(DB_NOW_MS))?.db_now);
      const version = Number(raw.find((r) => r.biz_tag === VERSION_ROW)?.version ?? 0);
      return { rows: raw.filter((r) => r.biz_tag !== VERSION_ROW).map(orderFromRaw), version, dbNowMs };
    });
  }

  async setOrdering(bizTag: string, ordering: Ordering, audit?: AuditStamp): Promise<OrderingChange> {
    return this.exec.transaction((db) => {
      existingTag(bizTag, readTagRow(db, bizTag));
      const change = changeOrdering(db, bizTag, ordering);
      if (audit !== undefined && change.before !== change.after)
        insertAudit(db, auditInsert(audit, 'tag.ordering', bizTag, { ordering: change.before }, { ordering }));
      return change;
    });
  }

  async completeStrict(bizTag: string, version: number): Promise<boolean> {
    return this.exec.changedOne((db) => db.run(completeStrictSql(DB_NOW_MS, bizTag, version)));
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

  async registerParticipant(p: NewParticipant): Promise<void> {
    this.exec.write((db) =>
      db
        .insert(leafParticipant)
        .values({ ...p, ackedVersion: 0, startedAt: DB_NOW_MS, seenAt: DB_NOW_MS })
        .onConflictDoNothing()
        .run(),
    );
  }

  async ackParticipant(instanceId: string, version: number): Promise<boolean> {
    return this.exec.changedOne((db) => db.run(ackParticipantSql(DB_NOW_MS, instanceId, version)));
  }

  async removeParticipant(instanceId: string, audit?: AuditStamp): Promise<boolean> {
    return this.exec.transaction((db) => {
      const row = db.get<RawParticipantRow>(
        sql`SELECT * FROM ${sql.identifier('leaf_participant')} WHERE instance_id = ${instanceId}`,
      );
      if (row === undefined) return false;
      db.run(deleteParticipantSql(instanceId));
      if (audit !== undefined) {
        const p = participantFromRaw(row);
        const entry = { instanceId, kind: p.kind, label: p.label, host: p.host, ackedVersion: p.ackedVersion };
        insertAudit(db, auditInsert(audit, 'participant.forget', null, entry, undefined));
      }
      return true;
    });
  }

  async listParticipants(): Promise<ParticipantRead> {
    return this.exec.read((db) => ({
      participants: db.all<RawParticipantRow>(selectParticipantsSql()).map(participantFromRaw),
      dbNowMs: Number(db.get<{ db_now: number }>(selectNow(DB_NOW_MS))?.db_now),
    }));
  }

  async pruneParticipants(silentMs: number): Promise<number> {
    return this.exec.write((db) => db.run(pruneParticipantsSql(DB_NOW_MS, silentMs))).changes;
  }
}
