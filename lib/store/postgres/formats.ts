import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm';
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
import { leafFormat, leafFormatPeriod } from '../schema/postgres';
import { type ServerExecutor, type Tx, raw } from '../serverExecutor';
import type { PgResult } from './executor';
import { db, DB_NOW_MS, insertAudit, NOW_MS_SQL } from './sql';

/** A statement runner answering PgResult: the executor's (for a read), or a transaction's statement. */
type Read = Tx;

/** The advisory-lock class of a format's name (as tags.ts's): FOR UPDATE locks no row that is not there yet. */
const FORMAT_NAME_LOCK = 0x1eb0;

/**
 * leaf_format and leaf_format_period on PostgreSQL: the rules are formatRows.ts's; a period claim is one
 * statement, each change a transaction with its audit row.
 */
export class PostgresFormats implements FormatStore {
  constructor(private readonly exec: ServerExecutor) {}

  async listFormats(): Promise<FormatRow[]> {
    const rows = await this.exec.read<RawFormatRow[]>(
      db.select().from(leafFormat).where(isNull(leafFormat.deletedAt)).orderBy(asc(leafFormat.bizTag)),
    );
    return rows.map((r) => formatRow(formatFromRaw(r)));
  }

  getFormat(bizTag: string): Promise<FormatRow | undefined> {
    return getFormat((s) => this.exec.write(s, true), bizTag, false); // a read: harmless to run twice
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
   * One INSERT … ON CONFLICT DO UPDATE, atomic under the row lock: the period's row is created with numbers 1…, or
   * its max_id moves up, clipped at the cap (never down). Every SET reads the row as it was, and RETURNING answers it
   * as it is now: the claim's first number is the new max_id − the new step + 1, so the claim is one round trip and
   * its numbers come from its own answer, never from a later read. Retried after an unknown outcome, like a segment
   * claim: a claim that did land is then a gap, never a repeat.
   */
  async claimPeriod(bizTag: string, periodKey: string, step: number, cap: number): Promise<PeriodClaim> {
    const { rows } = await this.exec.write<PgResult<{ max_id: string; step: number }>>(
      raw(
        'INSERT INTO leaf_format_period AS p (biz_tag, period_key, max_id, step, update_time) ' +
          `VALUES ($1, $2, LEAST($3::bigint, $4::bigint), LEAST($3::bigint, $4::bigint), ${NOW_MS_SQL}) ` +
          'ON CONFLICT (biz_tag, period_key) DO UPDATE SET max_id = GREATEST(p.max_id, LEAST(p.max_id + $3::bigint, $4::bigint)), ' +
          `step = GREATEST(p.max_id, LEAST(p.max_id + $3::bigint, $4::bigint)) - p.max_id, update_time = ${NOW_MS_SQL} RETURNING max_id, step`,
        [bizTag, periodKey, step, cap],
      ),
      true,
    );
    const row = rows[0];
    // INSERT … ON CONFLICT DO UPDATE … RETURNING answers one row or fails; no row would be a broken contract.
    if (row === undefined) throw new Error(`period claim of ${bizTag} ${periodKey} answered no row`);
    return claimFrom(Number(row.max_id) - Number(row.step) + 1, step, cap);
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
      await tx(raw('SELECT pg_advisory_xact_lock($1, hashtext($2))', [FORMAT_NAME_LOCK, format.bizTag]));
      checkCreate(await readFormat(tx, format.bizTag, true), format);
      const values = {
        ...format,
        description: format.description ?? null,
        deletedAt: null,
        createdAt: DB_NOW_MS,
        updatedAt: DB_NOW_MS,
      };
      await tx(db.insert(leafFormat).values(values).onConflictDoUpdate({ target: leafFormat.bizTag, set: values }));
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
  const [row] = (
    await run<PgResult<RawFormatRow>>(
      raw(`SELECT * FROM leaf_format WHERE biz_tag = $1${lock ? ' FOR UPDATE' : ''}`, [bizTag]),
    )
  ).rows;
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
