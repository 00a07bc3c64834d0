import { type Table, and, asc, eq, lt, lte, sql } from 'drizzle-orm';
import { type MySql2Database, drizzle } from 'drizzle-orm/mysql2';
import mysql, { type Pool, type PoolConnection, type PoolOptions, type ResultSetHeader } from 'mysql2/promise';
import { LeafError, storeUnavailable, tagNotFound } from '../errors';
import { migrateMysql } from './migrate';
import { badStep, belowTombstone, lowered } from './adminErrors';
import { leafAlloc, leafAllocTombstone, leafWorker } from './schema/mysql';
import {
  type Allocation,
  MAX_SAFE_ID,
  type NewTag,
  type SegmentStore,
  type TagChanges,
  type TagInfo,
  type TagRow,
  exactId,
  type WorkerRow,
  type WorkerStore,
} from './types';

/** The database clock in ms since the Unix epoch. */
const DB_NOW_MS = sql`CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)`;

export interface MysqlStoreOptions {
  /** mysql://user:pass@host:port/database */
  url: string;
  connectionLimit?: number;
  connectTimeoutMs?: number;
  /** Every query is bounded: a hung database turns into a typed error, not a hung request. */
  queryTimeoutMs?: number;
  /** Root of the per-dialect migrations; `./drizzle` by default. */
  migrationsDir?: string;
}

/**
 * A row of `table` as this store receives it: drizzle compiles the query, but mysql2 runs it (for the per-query
 * timeout), so rows are keyed by column name, not drizzle's field name, and BIGINT columns arrive as decimal
 * strings (bigNumberStrings), which exactId checks before they become numbers.
 */
type RawRow<T extends Table> = {
  [F in keyof T['$inferSelect'] & keyof T['_']['columns'] as T['_']['columns'][F]['_']['name']]: T['_']['columns'][F]['_']['columnType'] extends
    | 'MySqlBigInt53'
    | 'MySqlBigInt64'
    ? string
    : T['$inferSelect'][F];
};

type AllocRow = RawRow<typeof leafAlloc>;
type WorkerRawRow = RawRow<typeof leafWorker>;
type TombstoneRow = RawRow<typeof leafAllocTombstone>;

interface Compiled {
  toSQL(): { sql: string; params: unknown[] };
}

/**
 * MySQL / MariaDB through a mysql2 pool. A claim is one statement,
 * `UPDATE … SET max_id = LAST_INSERT_ID(max_id + ?)`, atomic under InnoDB's row lock, whose OK packet carries the
 * new max_id: one round trip per segment.
 */
export class MysqlStore implements SegmentStore, WorkerStore {
  readonly dialect = 'mysql' as const;
  private readonly pool: Pool;
  private readonly db: MySql2Database;
  private readonly queryTimeoutMs: number;

  private constructor(pool: Pool, queryTimeoutMs: number) {
    this.pool = pool;
    this.db = drizzle(pool);
    this.queryTimeoutMs = queryTimeoutMs;
  }

  /** Opens the pool and applies migrations (under a lock, so nodes may start together). */
  static async open({ url, connectionLimit = 8, connectTimeoutMs = 3_000, queryTimeoutMs = 5_000, migrationsDir }: MysqlStoreOptions): Promise<MysqlStore> {
    const options: PoolOptions = {
      uri: url,
      connectionLimit,
      connectTimeout: connectTimeoutMs,
      enableKeepAlive: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      timezone: 'Z',
      charset: 'utf8mb4',
      maxIdle: connectionLimit,
      idleTimeout: 60_000,
    };
    const migrationConnection = await mysql.createConnection(options);
    try {
      await migrateMysql(migrationConnection, migrationsDir);
    } finally {
      await migrationConnection.end();
    }
    return new MysqlStore(mysql.createPool(options), queryTimeoutMs);
  }

  async listTags(): Promise<TagInfo[]> {
    const rows = await this.run<Array<Pick<AllocRow, 'biz_tag' | 'step'>>>(
      this.db.select({ bizTag: leafAlloc.bizTag, step: leafAlloc.step }).from(leafAlloc).orderBy(asc(leafAlloc.bizTag)),
    );
    return rows.map((r) => ({ bizTag: r.biz_tag, step: r.step }));
  }

  async listTagRows(): Promise<TagRow[]> {
    const rows = await this.run<AllocRow[]>(this.db.select().from(leafAlloc).orderBy(asc(leafAlloc.bizTag)));
    return rows.map(toTagRow);
  }

  async getTag(bizTag: string): Promise<TagRow | undefined> {
    const rows = await this.run<AllocRow[]>(this.db.select().from(leafAlloc).where(eq(leafAlloc.bizTag, bizTag)));
    return rows[0] === undefined ? undefined : toTagRow(rows[0]);
  }

  async allocate(bizTag: string, step?: number): Promise<Allocation> {
    // Without an explicit step, read the row's step first and add exactly that: the segment's size is what we
    // added, even if an operator changes the step in between.
    const added = step ?? (await this.getTag(bizTag))?.step;
    if (added === undefined) throw tagNotFound(bizTag);
    if (!Number.isSafeInteger(added) || added < 1) throw badStep(bizTag, added);
    const header = await this.run<ResultSetHeader>(
      this.db
        .update(leafAlloc)
        .set({ maxId: sql`LAST_INSERT_ID(${leafAlloc.maxId} + ${added})` })
        .where(and(eq(leafAlloc.bizTag, bizTag), lte(leafAlloc.maxId, MAX_SAFE_ID - added))),
    );
    // affectedRows 0 leaves LAST_INSERT_ID stale: never read insertId then.
    if (header.affectedRows === 1) return { bizTag, maxId: exactId(header.insertId, bizTag), step: added };
    if ((await this.getTag(bizTag)) === undefined) throw tagNotFound(bizTag);
    throw new LeafError('id_space_exhausted', `Tag "${bizTag}" has no IDs left below 2^53.`);
  }

  async createTag({ bizTag, step, maxId, description = null }: NewTag): Promise<TagRow> {
    await this.transaction(async (q) => {
      // FOR UPDATE locks the tombstone (or its gap), so a concurrent delete cannot slip a lower row in.
      const [tomb] = await q<Array<Pick<TombstoneRow, 'max_id'>>>(
        'SELECT max_id FROM `leaf_alloc_tombstone` WHERE biz_tag = ? FOR UPDATE',
        [bizTag],
      );
      const tombstoneMax = tomb === undefined ? undefined : exactId(tomb.max_id, bizTag);
      if (tombstoneMax !== undefined && maxId !== undefined && maxId < tombstoneMax) throw belowTombstone(bizTag, tombstoneMax);
      const insert = this.db.insert(leafAlloc).ignore().values({ bizTag, step, maxId: maxId ?? tombstoneMax ?? 1, description }).toSQL();
      const header = await q<ResultSetHeader>(insert.sql, insert.params);
      if (header.affectedRows === 0) throw new LeafError('tag_exists', `Tag "${bizTag}" already exists.`);
      if (tombstoneMax !== undefined) await q('DELETE FROM `leaf_alloc_tombstone` WHERE biz_tag = ?', [bizTag]);
    });
    return (await this.getTag(bizTag)) as TagRow;
  }

  async updateTag(bizTag: string, { step, description }: TagChanges): Promise<TagRow> {
    const set: Partial<typeof leafAlloc.$inferInsert> = {};
    if (step !== undefined) set.step = step;
    if (description !== undefined) set.description = description;
    // Touch update_time too, so a no-op edit still matches the row (affectedRows counts matched rows).
    const header = await this.run<ResultSetHeader>(
      this.db.update(leafAlloc).set({ ...set, updateTime: sql`CURRENT_TIMESTAMP` }).where(eq(leafAlloc.bizTag, bizTag)),
    );
    if (header.affectedRows === 0) throw tagNotFound(bizTag);
    return (await this.getTag(bizTag)) as TagRow;
  }

  async raiseMaxId(bizTag: string, maxId: number): Promise<TagRow> {
    const header = await this.run<ResultSetHeader>(
      this.db.update(leafAlloc).set({ maxId }).where(and(eq(leafAlloc.bizTag, bizTag), lte(leafAlloc.maxId, maxId))),
    );
    const row = await this.getTag(bizTag);
    if (row === undefined) throw tagNotFound(bizTag);
    if (header.affectedRows === 0) throw lowered(bizTag, row.maxId, maxId);
    return row;
  }

  async deleteTag(bizTag: string): Promise<{ maxId: number }> {
    return this.transaction(async (q) => {
      const [row] = await q<Array<Pick<AllocRow, 'max_id'>>>('SELECT max_id FROM `leaf_alloc` WHERE biz_tag = ? FOR UPDATE', [bizTag]);
      if (row === undefined) throw tagNotFound(bizTag);
      const maxId = exactId(row.max_id, bizTag);
      await q(
        'INSERT INTO `leaf_alloc_tombstone` (biz_tag, max_id) VALUES (?, ?) ' +
          'ON DUPLICATE KEY UPDATE max_id = GREATEST(max_id, VALUES(max_id)), deleted_at = CURRENT_TIMESTAMP',
        [bizTag, maxId],
      );
      await q('DELETE FROM `leaf_alloc` WHERE biz_tag = ?', [bizTag]);
      return { maxId };
    });
  }

  async getTombstone(bizTag: string): Promise<{ maxId: number } | undefined> {
    const rows = await this.run<Array<Pick<TombstoneRow, 'max_id'>>>(
      this.db.select({ maxId: leafAllocTombstone.maxId }).from(leafAllocTombstone).where(eq(leafAllocTombstone.bizTag, bizTag)),
    );
    return rows[0] === undefined ? undefined : { maxId: exactId(rows[0].max_id, bizTag) };
  }

  /** One connection, BEGIN … COMMIT; any throw rolls back. Every statement keeps the query timeout. */
  private async transaction<T>(fn: (q: <R = unknown>(text: string, values: unknown[]) => Promise<R>) => Promise<T>): Promise<T> {
    let conn: PoolConnection;
    try {
      conn = await this.pool.getConnection();
    } catch (error) {
      throw storeUnavailable(error);
    }
    const q = async <R,>(text: string, values: unknown[]): Promise<R> => {
      try {
        const [result] = await conn.query({ sql: text, values, timeout: this.queryTimeoutMs });
        return result as R;
      } catch (error) {
        throw storeUnavailable(error);
      }
    };
    try {
      await q('BEGIN', []);
      const result = await fn(q);
      await q('COMMIT', []);
      return result;
    } catch (error) {
      await conn.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      conn.release();
    }
  }

  async listWorkers(): Promise<WorkerRow[]> {
    const rows = await this.run<WorkerRawRow[]>(this.db.select().from(leafWorker).orderBy(asc(leafWorker.workerId)));
    return rows.map((r) => ({
      workerId: r.worker_id,
      nodeId: r.node_id,
      instanceId: r.instance_id,
      // ms timestamps: far below 2^53, so Number is exact.
      leaseExpiresAt: Number(r.lease_expires_at),
      lastTimestamp: Number(r.last_timestamp),
      heartbeatAt: Number(r.heartbeat_at),
    }));
  }

  async claimOwnWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.changed(
      this.db
        .update(leafWorker)
        .set({ instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, heartbeatAt: DB_NOW_MS })
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.nodeId, nodeId))),
    );
  }

  async claimFreeWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    // INSERT IGNORE: a duplicate key (another node won the id) is 0 rows, not an error.
    const insert = this.db
      .insert(leafWorker)
      .ignore()
      .values({ workerId, nodeId, instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, lastTimestamp: 0, heartbeatAt: DB_NOW_MS });
    return this.changed(insert);
  }

  async claimExpiredWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.changed(
      this.db
        .update(leafWorker)
        .set({ nodeId, instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, heartbeatAt: DB_NOW_MS })
        .where(and(eq(leafWorker.workerId, workerId), lt(leafWorker.leaseExpiresAt, DB_NOW_MS))),
    );
  }

  async readWorkerFence(workerId: number, instanceId: string): Promise<number | undefined> {
    const rows = await this.run<Array<Pick<WorkerRawRow, 'last_timestamp'>>>(
      this.db
        .select({ lastTimestamp: leafWorker.lastTimestamp })
        .from(leafWorker)
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId))),
    );
    return rows[0] === undefined ? undefined : Number(rows[0].last_timestamp);
  }

  async renewWorker(workerId: number, instanceId: string, leaseMs: number, reserveUntilMs: number): Promise<boolean> {
    return this.changed(
      this.db
        .update(leafWorker)
        .set({
          leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`,
          heartbeatAt: DB_NOW_MS,
          lastTimestamp: sql`GREATEST(${leafWorker.lastTimestamp}, ${reserveUntilMs})`,
        })
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId))),
    );
  }

  async releaseWorker(workerId: number, instanceId: string, lastTimestampMs: number): Promise<void> {
    await this.run(
      this.db
        .update(leafWorker)
        .set({ leaseExpiresAt: 0, lastTimestamp: lastTimestampMs }) // the generator is stopped: what it used is the fence
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId))),
    );
  }

  private async changed(query: Compiled): Promise<boolean> {
    const header = await this.run<ResultSetHeader>(query);
    return header.affectedRows === 1;
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1', []);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private run<T>(query: Compiled): Promise<T> {
    const { sql: text, params } = query.toSQL();
    return this.query<T>(text, params);
  }

  private async query<T>(text: string, values: unknown[]): Promise<T> {
    try {
      const [result] = await this.pool.query({ sql: text, values, timeout: this.queryTimeoutMs });
      return result as T;
    } catch (error) {
      throw storeUnavailable(error);
    }
  }
}

function toTagRow(r: AllocRow): TagRow {
  return {
    bizTag: r.biz_tag,
    maxId: exactId(r.max_id, r.biz_tag),
    step: r.step,
    description: r.description,
    updateTime: r.update_time,
  };
}
