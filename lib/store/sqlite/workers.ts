import { and, asc, eq, lt, sql } from 'drizzle-orm';
import type { WorkerRow, WorkerStore } from '../../snowflake/workerStore';
import { leafWorker } from '../schema/sqlite';
import type { SqliteExecutor } from './executor';
import { DB_NOW_MS } from './sql';

/** leaf_worker on SQLite: each claim one conditional statement, atomic under SQLite's write lock; times on its clock. */
export class SqliteWorkers implements WorkerStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async listWorkers(): Promise<WorkerRow[]> {
    return this.exec.read((db) => db.select().from(leafWorker).orderBy(asc(leafWorker.workerId)).all());
  }

  async claimOwnWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.exec.changedOne((db) =>
      db
        .update(leafWorker)
        .set({ instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, heartbeatAt: DB_NOW_MS })
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.nodeId, nodeId)))
        .run(),
    );
  }

  async claimFreeWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.exec.changedOne((db) =>
      db
        .insert(leafWorker)
        .values({
          workerId,
          nodeId,
          instanceId,
          leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`,
          lastTimestamp: 0,
          heartbeatAt: DB_NOW_MS,
        })
        .onConflictDoNothing()
        .run(),
    );
  }

  async claimExpiredWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.exec.changedOne((db) =>
      db
        .update(leafWorker)
        .set({ nodeId, instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, heartbeatAt: DB_NOW_MS })
        .where(and(eq(leafWorker.workerId, workerId), lt(leafWorker.leaseExpiresAt, DB_NOW_MS)))
        .run(),
    );
  }

  async readWorkerFence(workerId: number, instanceId: string): Promise<number | undefined> {
    const row = this.exec.read((db) =>
      db
        .select({ lastTimestamp: leafWorker.lastTimestamp })
        .from(leafWorker)
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId)))
        .get(),
    );
    return row?.lastTimestamp;
  }

  async renewWorker(workerId: number, instanceId: string, leaseMs: number, reserveUntilMs: number): Promise<boolean> {
    return this.exec.changedOne((db) =>
      db
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
    this.exec.write((db) =>
      db
        .update(leafWorker)
        .set({ leaseExpiresAt: 0, lastTimestamp: lastTimestampMs }) // the generator is stopped: what it used is the fence
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId)))
        .run(),
    );
  }
}
