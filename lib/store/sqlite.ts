import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { and, asc, eq, gte, lt, lte, sql } from 'drizzle-orm';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { storeUnavailable, tagNotFound } from '../errors';
import { badStep, existingTag, fleetSwitchAudit, idSpaceExhausted, planCreate, planDefaultSwitch, planEdit, planRaise, planTagSwitch, tagExists, tagSwitchAudit } from './tagRules';
import { SQLITE_NOW_MS as DB_NOW_MS } from './dbClock';
import { auditInsert } from './auditRows';
import { migrateSqlite } from './migrate';
import { SqliteNodes } from './sqliteNodes';
import { type LeafAllocRow, leafAlloc, leafAllocTombstone, leafWorker } from './schema/sqlite';
import { insertAuditSqlite, listAuditSqlite } from './sqliteAudit';
import { createTokenSqlite, listTokensSqlite, revokeTokenSqlite } from './sqliteTokens';
import { claimPeriodSqlite, giveBackPeriodSqlite, createFormatSqlite, deleteFormatSqlite, getFormatSqlite, listFormatPeriodsSqlite, listFormatsSqlite, updateFormatSqlite } from './sqliteFormats';
import { bumpDefaultFollowersSqlite, bumpTagSqlite, effectiveSemantics, listSemanticsSqlite, readSemanticsRows, writeSemanticsRow } from './sqliteSemantics';
import { FLEET_DEFAULT_KEY, type Semantics } from '../segment/semantics';
import { type Id, idBigint } from '../segment/id';
import type { Allocation, TagInfo } from '../segment/segmentSource';
import type { AuditAction, AuditStamp } from '../audit';
import type { AuditQuery, AuditRecord, AuditStore } from '../admin/auditStore';
import { MAX_ID } from '../segment/id';
import type { NewTag, TagChanges, TagRow } from '../admin/tagStore';
import type { LeafStore } from './leafStore';
import type { TagStore } from '../admin/tagStore';
import type { SemanticsStore } from '../segment/semanticsStore';
import type { TokenStore } from '../auth/tokenStore';
import type { FormatStore } from '../format/formatStore';
import type { SemanticsSettings, SemanticsSwitch } from '../segment/semanticsStore';
import { exactId } from './exactId';
import type { WorkerRow, WorkerStore } from '../snowflake/workerStore';
import type { NodeStore } from '../fleet/nodeStore';
import type { StoredToken, TokenRow } from '../auth/tokenStore';
import type { FormatChanges, FormatPeriodRow, FormatRow, NewFormat, PeriodClaim } from '../format/formatStore';


export interface SqliteStoreOptions {
  /** File path, or ':memory:'. */
  file: string;
  /** How long a writer waits for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
  /** Root of the per-dialect migrations; `./drizzle` by default. */
  migrationsDir?: string;
}

/**
 * The embedded default: one SQLite file in WAL mode. Several processes may share the file; each claim is one
 * UPDATE … RETURNING, atomic under SQLite's write lock.
 */
export class SqliteStore implements LeafStore, TagStore, SemanticsStore, WorkerStore, AuditStore, TokenStore, FormatStore {
  readonly dialect = 'sqlite' as const;
  /** True when this open created the database file, e.g. to seed a demo tag on first start. */
  readonly created: boolean;
  private readonly sqlite: Database.Database;
  private readonly db: BetterSQLite3Database;
  /** The fleet registry's statements (sqliteNodes.ts). */
  readonly nodes: NodeStore;
  readonly tags: TagStore = this;
  readonly semantics: SemanticsStore = this;
  readonly workers: WorkerStore = this;
  readonly formats: FormatStore = this;
  readonly tokens: TokenStore = this;
  readonly audit: AuditStore = this;

  constructor({ file, busyTimeoutMs = 5_000, migrationsDir }: SqliteStoreOptions) {
    const inMemory = file === ':memory:';
    if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.created = inMemory || !fs.existsSync(file);
    this.sqlite = new Database(file, { timeout: busyTimeoutMs });
    try {
      // Switching a brand-new file to WAL takes a lock the busy handler does not wait for: retry it ourselves
      // while several processes open the same new file at once.
      retryWhileBusy(() => this.sqlite.pragma('journal_mode = WAL'), busyTimeoutMs);
      this.sqlite.pragma('synchronous = NORMAL');
      migrateSqlite(this.sqlite, migrationsDir);
    } catch (error) {
      this.sqlite.close();
      throw storeUnavailable(error);
    }
    this.db = drizzle(this.sqlite);
    this.nodes = new SqliteNodes(this.db, (fn) => this.guard(fn));
  }


  async listTags(): Promise<TagInfo[]> {
    return this.guard(() =>
      this.db.select({ bizTag: leafAlloc.bizTag, step: leafAlloc.step }).from(leafAlloc).orderBy(asc(leafAlloc.bizTag)).all(),
    );
  }

  async listTagRows(): Promise<TagRow[]> {
    const rows = this.guard(() => this.db.select(this.rowColumns()).from(leafAlloc).orderBy(asc(leafAlloc.bizTag)).all());
    return rows.map(toTagRow);
  }

  async getTag(bizTag: string): Promise<TagRow | undefined> {
    return this.guard(() => this.readRow(bizTag));
  }

  /** Synchronous, so transactions can read the row before and after their change. */
  private readRow(bizTag: string): TagRow | undefined {
    const row = this.db.select(this.rowColumns()).from(leafAlloc).where(eq(leafAlloc.bizTag, bizTag)).get();
    return row === undefined ? undefined : toTagRow(row);
  }

  /** max_id read as text (better-sqlite3 would round a value beyond 2^53 to a float), then to an exact Id. */
  private rowColumns() {
    return {
      bizTag: leafAlloc.bizTag,
      maxId: maxIdText(leafAlloc.maxId),
      step: leafAlloc.step,
      description: leafAlloc.description,
      updateTime: leafAlloc.updateTime,
    };
  }

  async allocate(bizTag: string, step?: number): Promise<Allocation> {
    if (step !== undefined && (!Number.isSafeInteger(step) || step < 1)) throw badStep(bizTag, step);
    // A bigint parameter: better-sqlite3 binds a JS number as a REAL, and max_id + a REAL is a float beyond 2^53.
    const added = step === undefined ? leafAlloc.step : sql`${BigInt(step)}`;
    // One immediate transaction: the UPDATE, then the tag's semantics, so no switch can fall between them.
    const claim = this.sqlite.transaction(() => {
      const row = this.db
        .update(leafAlloc)
        .set({ maxId: sql`${leafAlloc.maxId} + ${added}`, updateTime: sql`CURRENT_TIMESTAMP` })
        // The guard keeps max_id within a BIGINT (SQLite would turn an overflowing sum into a float): refused, not
        // rounded. The bound is bound as a bigint, so it is exact.
        .where(and(eq(leafAlloc.bizTag, bizTag), gte(leafAlloc.step, 1), lte(leafAlloc.maxId, sql`${MAX_ID} - ${added}`)))
        .returning({ maxId: maxIdText(leafAlloc.maxId), step: leafAlloc.step })
        .get();
      return row === undefined ? undefined : { ...row, semantics: effectiveSemantics(this.db, bizTag) };
    });
    const row = this.guard(() => claim.immediate());
    if (row !== undefined) return { bizTag, maxId: exactId(row.maxId, bizTag), step: step ?? row.step, semantics: row.semantics };
    const current = await this.getTag(bizTag);
    if (current === undefined) throw tagNotFound(bizTag);
    if (current.step < 1) throw badStep(bizTag, current.step);
    throw idSpaceExhausted(bizTag);
  }

  async giveBack(bizTag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean> {
    const result = this.guard(() =>
      this.db
        .update(leafAlloc)
        .set({ maxId: bigintParam(newMaxId), updateTime: sql`CURRENT_TIMESTAMP` })
        .where(and(eq(leafAlloc.bizTag, bizTag), eq(leafAlloc.maxId, bigintParam(claimedMaxId))))
        .run(),
    );
    return result.changes === 1;
  }

  async getSemantics(): Promise<SemanticsSettings> {
    return this.guard(() => listSemanticsSqlite(this.db));
  }

  async tagSemantics(bizTag: string): Promise<Semantics> {
    return this.guard(() => effectiveSemantics(this.db, bizTag));
  }

  async setDefaultSemantics(semantics: Semantics, audit?: AuditStamp): Promise<SemanticsSwitch> {
    const change = this.sqlite.transaction(() => {
      const plan = planDefaultSwitch(readSemanticsRows(this.db).fleet, semantics);
      if (!plan.changes) return { before: plan.before, after: plan.after, bumped: 0 };
      const bumped = plan.bump === 1 ? bumpDefaultFollowersSqlite(this.db) : 0;
      writeSemanticsRow(this.db, FLEET_DEFAULT_KEY, semantics);
      if (audit !== undefined) insertAuditSqlite(this.db, fleetSwitchAudit(audit, plan, bumped));
      return { before: plan.before, after: plan.after, bumped };
    });
    return this.guard(() => change.immediate());
  }

  async setTagSemantics(bizTag: string, semantics: Semantics | null, audit?: AuditStamp): Promise<SemanticsSwitch> {
    const change = this.sqlite.transaction(() => {
      const row = existingTag(bizTag, this.readRow(bizTag));
      const plan = planTagSwitch(readSemanticsRows(this.db, bizTag), semantics);
      const bumped = plan.bump === 1 ? bumpTagSqlite(this.db, bizTag) : 0;
      if (plan.writesRow) writeSemanticsRow(this.db, bizTag, semantics);
      if (audit !== undefined && plan.writesRow) insertAuditSqlite(this.db, tagSwitchAudit(audit, plan, row, this.readRow(bizTag) as TagRow, bumped));
      return { before: plan.before, after: plan.after, bumped };
    });
    return this.guard(() => change.immediate());
  }

  async createTag({ bizTag, step, maxId, description = null }: NewTag, audit?: AuditStamp): Promise<TagRow> {
    const insert = this.sqlite.transaction(() => {
      const tombstone = this.readTombstone(bizTag);
      const startAt = planCreate({ bizTag, maxId }, tombstone?.maxId);
      const inserted = this.db.insert(leafAlloc).values({ bizTag, step, maxId: bigintParam(startAt), description }).onConflictDoNothing().run();
      if (inserted.changes === 0) throw tagExists(bizTag);
      if (tombstone !== undefined) this.db.delete(leafAllocTombstone).where(eq(leafAllocTombstone.bizTag, bizTag)).run();
      const after = this.readRow(bizTag) as TagRow;
      if (audit !== undefined) this.recordAudit(audit, 'tag.create', bizTag, undefined, after);
      return after;
    });
    return this.guard(() => insert.immediate());
  }

  async updateTag(bizTag: string, changes: TagChanges, audit?: AuditStamp): Promise<TagRow> {
    const update = this.sqlite.transaction(() => {
      const before = existingTag(bizTag, this.readRow(bizTag));
      this.db
        .update(leafAlloc)
        .set({ ...planEdit(changes), updateTime: sql`CURRENT_TIMESTAMP` })
        .where(eq(leafAlloc.bizTag, bizTag))
        .run();
      const after = this.readRow(bizTag) as TagRow;
      if (audit !== undefined) this.recordAudit(audit, 'tag.edit', bizTag, before, after);
      return after;
    });
    return this.guard(() => update.immediate());
  }

  async raiseMaxId(bizTag: string, maxId: Id, audit?: AuditStamp): Promise<TagRow> {
    const raise = this.sqlite.transaction(() => {
      // Under the write lock (immediate) no claim can move max_id between this check and the update.
      const before = existingTag(bizTag, this.readRow(bizTag));
      this.db.update(leafAlloc).set({ maxId: bigintParam(planRaise(before, maxId)), updateTime: sql`CURRENT_TIMESTAMP` }).where(eq(leafAlloc.bizTag, bizTag)).run();
      const after = this.readRow(bizTag) as TagRow;
      if (audit !== undefined) this.recordAudit(audit, 'tag.raise', bizTag, before, after);
      return after;
    });
    return this.guard(() => raise.immediate());
  }

  async deleteTag(bizTag: string, audit?: AuditStamp): Promise<{ maxId: Id }> {
    const remove = this.sqlite.transaction(() => {
      const row = existingTag(bizTag, this.readRow(bizTag));
      this.db
        .insert(leafAllocTombstone)
        .values({ bizTag, maxId: bigintParam(row.maxId) })
        .onConflictDoUpdate({
          target: leafAllocTombstone.bizTag,
          set: { maxId: sql`max(${leafAllocTombstone.maxId}, excluded.max_id)`, deletedAt: sql`CURRENT_TIMESTAMP` },
        })
        .run();
      this.db.delete(leafAlloc).where(eq(leafAlloc.bizTag, bizTag)).run();
      if (audit !== undefined) this.recordAudit(audit, 'tag.delete', bizTag, row, undefined);
      return { maxId: row.maxId };
    });
    return this.guard(() => remove.immediate());
  }

  async appendAudit(entry: AuditStamp & { action: AuditAction; bizTag?: string | null }): Promise<void> {
    this.guard(() => this.recordAudit(entry, entry.action, entry.bizTag ?? null, undefined, undefined));
  }

  async listAudit(query: AuditQuery): Promise<AuditRecord[]> {
    return this.guard(() => listAuditSqlite(this.db, query));
  }

  private recordAudit(stamp: AuditStamp, action: AuditAction, bizTag: string | null, before: TagRow | undefined, after: TagRow | undefined): void {
    insertAuditSqlite(this.db, auditInsert(stamp, action, bizTag, before, after));
  }

  async listTokens(): Promise<StoredToken[]> {
    return this.guard(() => listTokensSqlite(this.db));
  }

  async createToken(token: StoredToken, audit: AuditStamp): Promise<TokenRow> {
    const create = this.sqlite.transaction(() => createTokenSqlite(this.db, token, audit));
    return this.guard(() => create.immediate());
  }

  async revokeToken(id: string, at: number, audit: AuditStamp): Promise<TokenRow> {
    const revoke = this.sqlite.transaction(() => revokeTokenSqlite(this.db, id, at, audit));
    return this.guard(() => revoke.immediate());
  }

  async listFormats(): Promise<FormatRow[]> {
    return this.guard(() => listFormatsSqlite(this.db));
  }

  async getFormat(bizTag: string): Promise<FormatRow | undefined> {
    return this.guard(() => getFormatSqlite(this.db, bizTag));
  }

  async listFormatPeriods(bizTag: string, periodKeys?: string[]): Promise<FormatPeriodRow[]> {
    return this.guard(() => listFormatPeriodsSqlite(this.db, bizTag, periodKeys));
  }

  /** One statement, atomic under SQLite's write lock (sqliteFormats.ts). */
  async claimPeriod(bizTag: string, periodKey: string, step: number, cap: number): Promise<PeriodClaim> {
    return this.guard(() => claimPeriodSqlite(this.db, bizTag, periodKey, step, cap));
  }

  async giveBackPeriod(bizTag: string, periodKey: string, claimedMaxId: number, newMaxId: number): Promise<boolean> {
    return this.guard(() => giveBackPeriodSqlite(this.db, bizTag, periodKey, claimedMaxId, newMaxId));
  }

  async createFormat(format: NewFormat, audit: AuditStamp): Promise<FormatRow> {
    const create = this.sqlite.transaction(() => createFormatSqlite(this.db, format, audit));
    return this.guard(() => create.immediate());
  }

  async updateFormat(bizTag: string, changes: FormatChanges, audit: AuditStamp): Promise<FormatRow> {
    const update = this.sqlite.transaction(() => updateFormatSqlite(this.db, bizTag, changes, audit));
    return this.guard(() => update.immediate());
  }

  async deleteFormat(bizTag: string, audit: AuditStamp): Promise<void> {
    const remove = this.sqlite.transaction(() => deleteFormatSqlite(this.db, bizTag, audit));
    this.guard(() => remove.immediate());
  }

  async getTombstone(bizTag: string): Promise<{ maxId: Id } | undefined> {
    return this.guard(() => this.readTombstone(bizTag));
  }

  private readTombstone(bizTag: string): { maxId: Id } | undefined {
    const row = this.db.select({ maxId: maxIdText(leafAllocTombstone.maxId) }).from(leafAllocTombstone).where(eq(leafAllocTombstone.bizTag, bizTag)).get();
    return row === undefined ? undefined : { maxId: exactId(row.maxId, bizTag) };
  }

  async listWorkers(): Promise<WorkerRow[]> {
    return this.guard(() => this.db.select().from(leafWorker).orderBy(asc(leafWorker.workerId)).all());
  }

  async claimOwnWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.changed(() =>
      this.db
        .update(leafWorker)
        .set({ instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, heartbeatAt: DB_NOW_MS })
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.nodeId, nodeId)))
        .run(),
    );
  }

  async claimFreeWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.changed(() =>
      this.db
        .insert(leafWorker)
        .values({ workerId, nodeId, instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, lastTimestamp: 0, heartbeatAt: DB_NOW_MS })
        .onConflictDoNothing()
        .run(),
    );
  }

  async claimExpiredWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.changed(() =>
      this.db
        .update(leafWorker)
        .set({ nodeId, instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, heartbeatAt: DB_NOW_MS })
        .where(and(eq(leafWorker.workerId, workerId), lt(leafWorker.leaseExpiresAt, DB_NOW_MS)))
        .run(),
    );
  }

  async readWorkerFence(workerId: number, instanceId: string): Promise<number | undefined> {
    const row = this.guard(() =>
      this.db
        .select({ lastTimestamp: leafWorker.lastTimestamp })
        .from(leafWorker)
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId)))
        .get(),
    );
    return row?.lastTimestamp;
  }

  async renewWorker(workerId: number, instanceId: string, leaseMs: number, reserveUntilMs: number): Promise<boolean> {
    return this.changed(() =>
      this.db
        .update(leafWorker)
        .set({
          leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`,
          heartbeatAt: DB_NOW_MS,
          lastTimestamp: sql`max(${leafWorker.lastTimestamp}, ${reserveUntilMs})`,
        })
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId)))
        .run(),
    );
  }

  async releaseWorker(workerId: number, instanceId: string, lastTimestampMs: number): Promise<void> {
    this.guard(() =>
      this.db
        .update(leafWorker)
        .set({ leaseExpiresAt: 0, lastTimestamp: lastTimestampMs }) // the generator is stopped: what it used is the fence
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId)))
        .run(),
    );
  }

  private changed(fn: () => { changes: number }): boolean {
    return this.guard(fn).changes === 1;
  }

  async ping(): Promise<void> {
    this.guard(() => this.sqlite.prepare('SELECT 1').get());
  }

  async close(): Promise<void> {
    if (this.sqlite.open) this.sqlite.close();
  }

  /** Runs a synchronous driver call; typed errors pass through, driver errors become store_unavailable. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw storeUnavailable(error);
    }
  }
}

/** A max_id column read as decimal text: exact whatever its size. */
function maxIdText(column: typeof leafAlloc.maxId | typeof leafAllocTombstone.maxId) {
  return sql<string>`CAST(${column} AS TEXT)`;
}

/** An Id written to an INTEGER column: bound as a bigint, so better-sqlite3 writes it exactly. */
function bigintParam(id: Id) {
  return sql`${idBigint(id)}`;
}

/** A leaf_alloc row as rowColumns() selects it: max_id as text. */
type AllocTextRow = Omit<LeafAllocRow, 'maxId'> & { maxId: string };

function toTagRow(r: AllocTextRow): TagRow {
  return {
    bizTag: r.bizTag,
    maxId: exactId(r.maxId, r.bizTag),
    step: r.step,
    description: r.description,
    updateTime: new Date(r.updateTime.replace(' ', 'T') + 'Z'),
  };
}

function retryWhileBusy<T>(fn: () => T, timeoutMs: number): T {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      return fn();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if ((code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') || Date.now() >= deadline) throw error;
      // A synchronous constructor has no event loop to yield to; Atomics.wait sleeps without spinning.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delay);
    }
  }
}
