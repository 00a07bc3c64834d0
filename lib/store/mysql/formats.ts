import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm';
import type { ResultSetHeader } from 'mysql2/promise';
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
import { auditInsert } from '../auditRows';
import { type FormatStored, checkCreate, checkEdit, claimFrom, formatRow } from '../formatRows';
import { type RawFormatRow, type RawPeriodRow, formatFromRaw, periodFromRaw } from '../serverRows';
import { leafFormat, leafFormatPeriod } from '../schema/mysql';
import { type ServerExecutor, type Tx, raw } from '../serverExecutor';
import { db, DB_NOW_MS, insertAudit, NOW_MS_SQL } from './sql';

/** A statement runner: the executor's read, or a transaction's statement. */
type Read = Tx;

/**
 * leaf_format and leaf_format_period on MySQL/MariaDB: the rules are formatRows.ts's; a period claim is one
 * statement, each change a transaction with its audit row.
 */
export class MysqlFormats implements FormatStore {
  constructor(private readonly exec: ServerExecutor) {}

  async listFormats(): Promise<FormatRow[]> {
    const rows = await this.exec.read<RawFormatRow[]>(
      db.select().from(leafFormat).where(isNull(leafFormat.deletedAt)).orderBy(asc(leafFormat.bizTag)),
    );
    return rows.map((r) => formatRow(formatFromRaw(r)));
  }

  getFormat(bizTag: string): Promise<FormatRow | undefined> {
    return getFormat((s) => this.exec.read(s), bizTag, false);
  }

  async listFormatPeriods(bizTag: string, periodKeys?: string[]): Promise<FormatPeriodRow[]> {
    const where = and(
      eq(leafFormatPeriod.bizTag, bizTag),
      periodKeys === undefined ? undefined : inArray(leafFormatPeriod.periodKey, periodKeys),
    );
    const rows = await this.exec.read<RawPeriodRow[]>(
      db.select().from(leafFormatPeriod).where(where).orderBy(desc(leafFormatPeriod.periodKey)),
    );
    return rows.map(periodFromRaw);
  }

  /**
   * One INSERT … ON DUPLICATE KEY UPDATE, atomic under InnoDB's row lock (and Galera's certification): the period's
   * row is created with numbers 1…, or its max_id moves up, clipped at the cap. LAST_INSERT_ID(expr) marks the
   * claim's first number (1 on insert, the old max_id + 1 on update), which comes back in the OK packet, so the claim
   * is one round trip and its numbers come from its own answer, never from a later read. Assignments run left to
   * right: `step` (the claim's size, for the console) reads the old max_id before max_id moves. Retried after an
   * unknown outcome, like a segment claim: a claim that did land is then a gap, never a repeat.
   */
  async claimPeriod(bizTag: string, periodKey: string, step: number, cap: number): Promise<PeriodClaim> {
    const header = await this.exec.write<ResultSetHeader>(
      raw(
        'INSERT INTO `leaf_format_period` (biz_tag, period_key, max_id, step, update_time) ' +
          `VALUES (?, ?, LEAST(LAST_INSERT_ID(1) + ? - 1, ?), LEAST(?, ?), ${NOW_MS_SQL}) ` +
          'ON DUPLICATE KEY UPDATE step = LEAST(max_id + ?, ?) - max_id, max_id = LEAST(LAST_INSERT_ID(max_id + 1) + ? - 1, ?), ' +
          `update_time = ${NOW_MS_SQL}`,
        [bizTag, periodKey, step, cap, step, cap, step, cap, step, cap],
      ),
      true,
    );
    return claimFrom(Number(header.insertId), step, cap);
  }

  /** One statement, not run again after an unknown outcome (then nothing counts as given back). */
  giveBackPeriod(bizTag: string, periodKey: string, claimedMaxId: number, newMaxId: number): Promise<boolean> {
    const t = leafFormatPeriod;
    return this.exec.changedOne(
      db
        .update(t)
        .set({ maxId: newMaxId, updateTime: DB_NOW_MS })
        .where(and(eq(t.bizTag, bizTag), eq(t.periodKey, periodKey), eq(t.maxId, claimedMaxId))),
      false,
    );
  }

  createFormat(format: NewFormat, audit: AuditStamp): Promise<FormatRow> {
    return this.exec.transaction(async (tx) => {
      checkCreate(await readFormat(tx, format.bizTag, true), format);
      const values = {
        ...format,
        description: format.description ?? null,
        deletedAt: null,
        createdAt: DB_NOW_MS,
        updatedAt: DB_NOW_MS,
      };
      await tx(db.insert(leafFormat).values(values).onDuplicateKeyUpdate({ set: values }));
      const after = (await getFormat(tx, format.bizTag, true)) as FormatRow;
      await insertAudit(tx, auditInsert(audit, 'format.create', format.bizTag, undefined, after));
      return after;
    });
  }

  updateFormat(bizTag: string, changes: FormatChanges, audit: AuditStamp): Promise<FormatRow> {
    return this.exec.transaction(async (tx) => {
      const before = await existingFormat(tx, bizTag);
      checkEdit(before, changes);
      await tx(
        db
          .update(leafFormat)
          .set({ ...changes, updatedAt: DB_NOW_MS })
          .where(eq(leafFormat.bizTag, bizTag)),
      );
      const after = (await getFormat(tx, bizTag, true)) as FormatRow;
      await insertAudit(tx, auditInsert(audit, 'format.edit', bizTag, before, after));
      return after;
    });
  }

  deleteFormat(bizTag: string, audit: AuditStamp): Promise<void> {
    return this.exec.transaction(async (tx) => {
      const before = await existingFormat(tx, bizTag);
      await tx(db.update(leafFormat).set({ deletedAt: DB_NOW_MS }).where(eq(leafFormat.bizTag, bizTag)));
      await insertAudit(tx, auditInsert(audit, 'format.delete', bizTag, before, undefined));
    });
  }
}

/** The row under the name, deleted or not; `lock` inside a transaction (FOR UPDATE). */
async function readFormat(run: Read, bizTag: string, lock: boolean): Promise<FormatStored | undefined> {
  const [row] = await run<RawFormatRow[]>(
    raw(`SELECT * FROM \`leaf_format\` WHERE biz_tag = ?${lock ? ' FOR UPDATE' : ''}`, [bizTag]),
  );
  return row === undefined ? undefined : formatFromRaw(row);
}

async function getFormat(run: Read, bizTag: string, lock: boolean): Promise<FormatRow | undefined> {
  const found = await readFormat(run, bizTag, lock);
  return found === undefined || found.deletedAt !== null ? undefined : formatRow(found);
}

/** The format an edit or delete works on, locked: `tag_not_found` when missing (or deleted). */
async function existingFormat(tx: Tx, bizTag: string): Promise<FormatRow> {
  const found = await getFormat(tx, bizTag, true);
  if (found === undefined) throw formatNotFound(bizTag);
  return found;
}
