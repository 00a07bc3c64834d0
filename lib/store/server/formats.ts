import { sql } from 'drizzle-orm';
import type { AuditStamp } from '../../audit';
import type {
  FormatChanges,
  FormatPeriodRow,
  FormatRow,
  FormatStore,
  NewFormat,
  PeriodClaim,
} from '../../format/formatStore';
import { formatNotFound } from '../../format/rules';
import { auditInsert } from '../rows/audit';
import { checkCreate, checkEdit, claimFrom } from '../formatRules';
import type { ServerExecutor, Tx } from '../serverExecutor';
import {
  type FormatStored,
  type RawFormatRow,
  type RawPeriodRow,
  formatFromRaw,
  formatRow,
  periodFromRaw,
} from '../rows/formats';
import { insertAudit } from './audit';
import type { ServerDialect } from './dialect';
import { TABLE, assignments, list } from './query';

/** A statement runner: the executor's read, or a transaction's statement. */
type Read = <R>(query: ReturnType<typeof sql>) => Promise<R[]>;

/** leaf_format and its periods: formatRules.ts's rules; the period claim is the dialect's one statement. */
export class ServerFormats implements FormatStore {
  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {}

  async listFormats(): Promise<FormatRow[]> {
    const rows = await this.exec.read<RawFormatRow>(
      sql`SELECT * FROM ${TABLE.format} WHERE deleted_at IS NULL ORDER BY biz_tag`,
    );
    return rows.map((r) => formatRow(formatFromRaw(r)));
  }

  getFormat(bizTag: string): Promise<FormatRow | undefined> {
    return getFormat((q) => this.exec.read(q), bizTag, false);
  }

  async listFormatPeriods(bizTag: string, periodKeys?: string[]): Promise<FormatPeriodRow[]> {
    if (periodKeys?.length === 0) return [];
    const keys = periodKeys === undefined ? sql`` : sql`AND period_key IN ${list(periodKeys)}`;
    const rows = await this.exec.read<RawPeriodRow>(
      sql`SELECT * FROM ${TABLE.period} WHERE biz_tag = ${bizTag} ${keys} ORDER BY period_key DESC`,
    );
    return rows.map(periodFromRaw);
  }

  /** The dialect's one statement: numbers from its own answer, never a later read; retried like a segment claim. */
  async claimPeriod(bizTag: string, periodKey: string, step: number, cap: number): Promise<PeriodClaim> {
    const claim = this.dialect.claimPeriod(bizTag, periodKey, step, cap);
    const first = claim.decode(await this.exec.write(claim.query, true));
    // An upsert answers its row or fails; no answer would be a broken contract, never a claim of nothing.
    if (first === undefined) throw new Error(`period claim of ${bizTag} ${periodKey} answered nothing`);
    return claimFrom(first, step, cap);
  }

  /** One statement, not run again after an unknown outcome (then nothing counts as given back). */
  giveBackPeriod(bizTag: string, periodKey: string, claimedMaxId: number, newMaxId: number): Promise<boolean> {
    return this.exec.changedOne(
      sql`UPDATE ${TABLE.period} SET max_id = ${newMaxId}, update_time = ${this.dialect.nowMs}
          WHERE biz_tag = ${bizTag} AND period_key = ${periodKey} AND max_id = ${claimedMaxId}`,
      false,
    );
  }

  createFormat(format: NewFormat, audit: AuditStamp): Promise<FormatRow> {
    return this.exec.transaction(async (tx) => {
      const nameLock = this.dialect.nameLock('format', format.bizTag);
      if (nameLock !== null) await tx(nameLock);
      checkCreate(await readFormat(rows(tx), format.bizTag, true), format);
      const now = this.dialect.nowMs;
      const row = {
        biz_tag: format.bizTag,
        pattern: format.pattern,
        reset_period: format.resetPeriod,
        time_zone: format.timeZone,
        step: format.step,
        description: format.description ?? null,
        deleted_at: null,
        created_at: now,
        updated_at: now,
      };
      // A deleted format of the same shape is replaced in place: its periods continue.
      const { biz_tag: _key, ...rest } = row;
      await tx(this.dialect.upsert(TABLE.format, row, ['biz_tag'], () => rest));
      const after = (await getFormat(rows(tx), format.bizTag, true)) as FormatRow;
      await insertAudit(tx, auditInsert(audit, 'format.create', format.bizTag, undefined, after));
      return after;
    });
  }

  updateFormat(bizTag: string, changes: FormatChanges, audit: AuditStamp): Promise<FormatRow> {
    return this.exec.transaction(async (tx) => {
      const before = await existingFormat(tx, bizTag);
      checkEdit(before, changes);
      const set = {
        ...(changes.pattern === undefined ? {} : { pattern: changes.pattern }),
        ...(changes.timeZone === undefined ? {} : { time_zone: changes.timeZone }),
        ...(changes.step === undefined ? {} : { step: changes.step }),
        ...(changes.description === undefined ? {} : { description: changes.description }),
        updated_at: this.dialect.nowMs,
      };
      await tx(sql`UPDATE ${TABLE.format} SET ${assignments(set)} WHERE biz_tag = ${bizTag}`);
      const after = (await getFormat(rows(tx), bizTag, true)) as FormatRow;
      await insertAudit(tx, auditInsert(audit, 'format.edit', bizTag, before, after));
      return after;
    });
  }

  deleteFormat(bizTag: string, audit: AuditStamp): Promise<void> {
    return this.exec.transaction(async (tx) => {
      const before = await existingFormat(tx, bizTag);
      await tx(sql`UPDATE ${TABLE.format} SET deleted_at = ${this.dialect.nowMs} WHERE biz_tag = ${bizTag}`);
      await insertAudit(tx, auditInsert(audit, 'format.delete', bizTag, before, undefined));
    });
  }
}

/** A transaction's statements as a runner of reads. */
function rows(tx: Tx): Read {
  return async <R>(query: ReturnType<typeof sql>) => (await tx<R>(query)).rows;
}

/** The row under the name, deleted or not; `lock` inside a transaction (FOR UPDATE). */
async function readFormat(run: Read, bizTag: string, lock: boolean): Promise<FormatStored | undefined> {
  const [row] = await run<RawFormatRow>(
    sql`SELECT * FROM ${TABLE.format} WHERE biz_tag = ${bizTag} ${lock ? sql`FOR UPDATE` : sql``}`,
  );
  return row === undefined ? undefined : formatFromRaw(row);
}

async function getFormat(run: Read, bizTag: string, lock: boolean): Promise<FormatRow | undefined> {
  const found = await readFormat(run, bizTag, lock);
  return found === undefined || found.deletedAt !== null ? undefined : formatRow(found);
}

/** The format an edit or delete works on, locked: `tag_not_found` when missing (or deleted). */
async function existingFormat(tx: Tx, bizTag: string): Promise<FormatRow> {
  const found = await getFormat(rows(tx), bizTag, true);
  if (found === undefined) throw formatNotFound(bizTag);
  return found;
}
