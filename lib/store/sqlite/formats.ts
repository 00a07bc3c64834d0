import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
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
import { type FormatStored, formatRow, periodRow } from '../rows/formats';
import { leafFormat, leafFormatPeriod } from '../schema/sqlite';
import type { SqliteDb, SqliteExecutor } from './executor';
import { bigintParam, DB_NOW_MS, insertAudit } from './sql';

/** leaf_format and its periods on SQLite: one-statement claims, changes in immediate transactions. */
export class SqliteFormats implements FormatStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async listFormats(): Promise<FormatRow[]> {
    return this.exec.read((db) =>
      db
        .select()
        .from(leafFormat)
        .where(isNull(leafFormat.deletedAt))
        .orderBy(asc(leafFormat.bizTag))
        .all()
        .map(formatRow),
    );
  }

  async getFormat(bizTag: string): Promise<FormatRow | undefined> {
    return this.exec.read((db) => getFormat(db, bizTag));
  }

  async listFormatPeriods(bizTag: string, periodKeys?: string[]): Promise<FormatPeriodRow[]> {
    const where = and(
      eq(leafFormatPeriod.bizTag, bizTag),
      periodKeys === undefined ? undefined : inArray(leafFormatPeriod.periodKey, periodKeys),
    );
    return this.exec.read((db) =>
      db.select().from(leafFormatPeriod).where(where).orderBy(desc(leafFormatPeriod.periodKey)).all().map(periodRow),
    );
  }

  /** ON CONFLICT DO UPDATE … RETURNING; SET reads the row as it was, so `step` is what this claim got. */
  async claimPeriod(bizTag: string, periodKey: string, step: number, cap: number): Promise<PeriodClaim> {
    // Bigints: better-sqlite3 binds a JS number as a REAL.
    const s = BigInt(step);
    const c = BigInt(cap);
    const t = leafFormatPeriod;
    const row = this.exec.write((db) =>
      db
        .insert(t)
        .values({ bizTag, periodKey, maxId: sql`MIN(${s}, ${c})`, step: sql`MIN(${s}, ${c})`, updateTime: DB_NOW_MS })
        .onConflictDoUpdate({
          target: [t.bizTag, t.periodKey],
          set: {
            step: sql`MIN(${t.maxId} + ${s}, ${c}) - ${t.maxId}`,
            maxId: sql`MIN(${t.maxId} + ${s}, ${c})`,
            updateTime: DB_NOW_MS,
          },
        })
        .returning({ maxId: t.maxId, step: t.step })
        .get(),
    );
    return claimFrom(Number(row.maxId) - Number(row.step) + 1, Number(row.step), cap);
  }

  async giveBackPeriod(bizTag: string, periodKey: string, claimedMaxId: number, newMaxId: number): Promise<boolean> {
    const t = leafFormatPeriod;
    return this.exec.changedOne((db) =>
      db
        .update(t)
        .set({ maxId: bigintParam(newMaxId), updateTime: DB_NOW_MS })
        .where(and(eq(t.bizTag, bizTag), eq(t.periodKey, periodKey), eq(t.maxId, bigintParam(claimedMaxId))))
        .run(),
    );
  }

  async createFormat(format: NewFormat, audit: AuditStamp): Promise<FormatRow> {
    return this.exec.transaction((db) => {
      checkCreate(readFormat(db, format.bizTag), format);
      const values = {
        ...format,
        description: format.description ?? null,
        deletedAt: null,
        createdAt: DB_NOW_MS,
        updatedAt: DB_NOW_MS,
      };
      db.insert(leafFormat).values(values).onConflictDoUpdate({ target: leafFormat.bizTag, set: values }).run();
      const after = getFormat(db, format.bizTag) as FormatRow;
      insertAudit(db, auditInsert(audit, 'format.create', format.bizTag, undefined, after));
      return after;
    });
  }

  async updateFormat(bizTag: string, changes: FormatChanges, audit: AuditStamp): Promise<FormatRow> {
    return this.exec.transaction((db) => {
      const before = getFormat(db, bizTag);
      if (before === undefined) throw formatNotFound(bizTag);
      checkEdit(before, changes);
      db.update(leafFormat)
        .set({ ...changes, updatedAt: DB_NOW_MS })
        .where(eq(leafFormat.bizTag, bizTag))
        .run();
      const after = getFormat(db, bizTag) as FormatRow;
      insertAudit(db, auditInsert(audit, 'format.edit', bizTag, before, after));
      return after;
    });
  }

  async deleteFormat(bizTag: string, audit: AuditStamp): Promise<void> {
    this.exec.transaction((db) => {
      const before = getFormat(db, bizTag);
      if (before === undefined) throw formatNotFound(bizTag);
      db.update(leafFormat).set({ deletedAt: DB_NOW_MS }).where(eq(leafFormat.bizTag, bizTag)).run();
      insertAudit(db, auditInsert(audit, 'format.delete', bizTag, before, undefined));
    });
  }
}

/** The row under the name, deleted or not. */
function readFormat(db: SqliteDb, bizTag: string): FormatStored | undefined {
  return db.select().from(leafFormat).where(eq(leafFormat.bizTag, bizTag)).get();
}

function getFormat(db: SqliteDb, bizTag: string): FormatRow | undefined {
  const found = readFormat(db, bizTag);
  return found === undefined || found.deletedAt !== null ? undefined : formatRow(found);
}
