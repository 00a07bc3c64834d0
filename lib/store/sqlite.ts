import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { and, asc, eq, lt, lte, sql } from 'drizzle-orm';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { LeafError, storeUnavailable } from '../errors';
import { migrateSqlite } from './migrate';
import { leafAlloc, leafWorker } from './schema/sqlite';
import {
  type Allocation,
  MAX_SAFE_ID,
  type NewTag,
  type SegmentStore,
  type TagInfo,
  type TagRow,
  type WorkerRow,
  type WorkerStore,
} from './types';

/** The database clock in ms since the Unix epoch. */
const DB_NOW_MS = sql`CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`;

export interface SqliteStoreOptions {
  /** File path, or ':memory:'. */
  file: string;
  /** How long a writer waits for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
}

/**
 * The embedded default: one SQLite file in WAL mode. Several processes may share the file; each claim is one
 * UPDATE … RETURNING, atomic under SQLite's write lock.
 */
export class SqliteStore implements SegmentStore, WorkerStore {
  readonly dialect = 'sqlite' as const;
  /** True when this open created the database file, e.g. to seed a demo tag on first start. */
  readonly created: boolean;
  private readonly sqlite: Database.Database;
  private readonly db: BetterSQLite3Database;

  constructor({ file, busyTimeoutMs = 5_000 }: SqliteStoreOptions) {
    const inMemory = file === ':memory:';
    if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.created = inMemory || !fs.existsSync(file);
    this.sqlite = new Database(file, { timeout: busyTimeoutMs });
    this.sqlite.pragma('journal_mode = WAL');
    this.sqlite.pragma('synchronous = NORMAL');
    migrateSqlite(this.sqlite);
    this.db = drizzle(this.sqlite);
  }

  async listTags(): Promise<TagInfo[]> {
    return this.guard(() =>
      this.db.select({ bizTag: leafAlloc.bizTag, step: leafAlloc.step }).from(leafAlloc).orderBy(asc(leafAlloc.bizTag)).all(),
    );
  }

  async getTag(bizTag: string): Promise<TagRow | undefined> {
    const row = this.guard(() => this.db.select().from(leafAlloc).where(eq(leafAlloc.bizTag, bizTag)).get());
    if (row === undefined) return undefined;
    return { ...row, updateTime: new Date(row.updateTime.replace(' ', 'T') + 'Z') };
  }

  async allocate(bizTag: string, step?: number): Promise<Allocation> {
    const added = step === undefined ? leafAlloc.step : step;
    const row = this.guard(() =>
      this.db
        .update(leafAlloc)
        .set({ maxId: sql`${leafAlloc.maxId} + ${added}`, updateTime: sql`CURRENT_TIMESTAMP` })
        // The guard keeps max_id exact as a JS number: the claim is refused, not rounded.
        .where(and(eq(leafAlloc.bizTag, bizTag), lte(leafAlloc.maxId, sql`${MAX_SAFE_ID} - ${added}`)))
        .returning({ maxId: leafAlloc.maxId, step: leafAlloc.step })
        .get(),
    );
    if (row !== undefined) return { bizTag, maxId: row.maxId, step: step ?? row.step };
    if ((await this.getTag(bizTag)) === undefined) throw new LeafError('tag_not_found', `Tag "${bizTag}" does not exist.`);
    throw new LeafError('id_space_exhausted', `Tag "${bizTag}" has no IDs left below 2^53.`);
  }

  async createTag({ bizTag, step, maxId = 1, description = null }: NewTag): Promise<void> {
    try {
      this.db.insert(leafAlloc).values({ bizTag, step, maxId, description }).run();
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new LeafError('tag_exists', `Tag "${bizTag}" already exists.`);
      }
      throw storeUnavailable(error);
    }
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

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw storeUnavailable(error);
    }
  }
}
