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
import type { ServerExecutor } from '../serverExecutor';
import { existingTag } from '../tagRules';
import { insertAudit } from './audit';
import type { ServerDialect } from './dialect';
import { TABLE } from './query';
import { changeOrdering } from './ordering';
import { lockTagRow } from './tags';

/** leaf_order and leaf_participant on a server: the lease's writes are single conditional statements on the database clock. */
export class ServerOrder implements OrderStore {
  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {}

  async readOrder(): Promise<OrderRead> {
    const raw = await this.exec.read<RawOrderRow>(selectOrderRows(this.dialect.nowMs));
    const dbNowMs = raw.length > 0 ? Number(raw[0]?.db_now) : await this.now();
    const version = Number(raw.find((r) => r.biz_tag === VERSION_ROW)?.version ?? 0);
    return { rows: raw.filter((r) => r.biz_tag !== VERSION_ROW).map(orderFromRaw), version, dbNowMs };
  }

  private async now(): Promise<number> {
    const [row] = await this.exec.read<{ db_now: number | string }>(selectNow(this.dialect.nowMs));
    return Number(row?.db_now);
  }

  setOrdering(bizTag: string, ordering: Ordering, audit?: AuditStamp): Promise<OrderingChange> {
    return this.exec.transaction(async (tx) => {
      existingTag(bizTag, await lockTagRow(tx, bizTag));
      const change = await changeOrdering(tx, this.dialect, bizTag, ordering);
      if (audit !== undefined && change.before !== change.after)
        await insertAudit(tx, auditInsert(audit, 'tag.ordering', bizTag, { ordering: change.before }, { ordering }));
      return change;
    });
  }

  completeStrict(bizTag: string, version: number): Promise<boolean> {
    // Harmless twice: a second run finds complete_at set and changes nothing.
    return this.exec.changedOne(completeStrictSql(this.dialect.nowMs, bizTag, version), true);
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

  async registerParticipant(participant: NewParticipant): Promise<void> {
    // An instance id is new per process: after an unknown outcome the row may be there already, which is the same.
    await this.exec.write(
      this.dialect.insertIgnore(TABLE.participant, {
        instance_id: participant.instanceId,
        kind: participant.kind,
        label: participant.label,
        host: participant.host,
        proc_key: participant.procKey,
        acked_version: 0,
        started_at: this.dialect.nowMs,
        seen_at: this.dialect.nowMs,
      }),
      true,
    );
  }

  ackParticipant(instanceId: string, version: number): Promise<boolean> {
    return this.exec.changedOne(ackParticipantSql(this.dialect.nowMs, instanceId, version), true);
  }

  removeParticipant(instanceId: string, audit?: AuditStamp): Promise<boolean> {
    if (audit === undefined) return this.exec.changedOne(deleteParticipantSql(instanceId), true);
    return this.exec.transaction(async (tx) => {
      const { rows } = await tx<RawParticipantRow>(
        sql`SELECT * FROM ${TABLE.participant} WHERE instance_id = ${instanceId}`,
      );
      const row = rows[0];
      if (row === undefined) return false;
      await tx(deleteParticipantSql(instanceId));
      const p = participantFromRaw(row);
      const entry = { instanceId, kind: p.kind, label: p.label, host: p.host, ackedVersion: p.ackedVersion };
      await insertAudit(tx, auditInsert(audit, 'participant.forget', null, entry, undefined));
      return true;
    });
  }

  async listParticipants(): Promise<ParticipantRead> {
    const [rows, dbNowMs] = await Promise.all([this.exec.read<RawParticipantRow>(selectParticipantsSql()), this.now()]);
    return { participants: rows.map(participantFromRaw), dbNowMs };
  }

  async pruneParticipants(silentMs: number): Promise<number> {
    return (await this.exec.write(pruneParticipantsSql(this.dialect.nowMs, silentMs), true)).affected;
  }
}
