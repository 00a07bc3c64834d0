import { and, asc, eq, lt, sql } from 'drizzle-orm';
import type { WorkerRow, WorkerStore } from '../../snowflake/workerStore';
import { leafWorker } from '../schema/postgres';
import { type RawWorkerRow, workerFromRaw } from '../serverRows';
import { DB_NOW_MS, db } from './sql';
import type { ServerExecutor } from '../serverExecutor';

/**
 * leaf_worker on PostgreSQL: each claim one conditional statement, atomic under the row lock (a racer's UPDATE
 * re-checks its WHERE on the row the winner committed); times on the database's clock. Each says whether it may run
 * again after an unknown outcome.
 */
export class PostgresWorkers implements WorkerStore {
  constructor(private readonly exec: ServerExecutor) {}

  async listWorkers(): Promise<WorkerRow[]> {
    const rows = await this.exec.read<RawWorkerRow[]>(db.select().from(leafWorker).orderBy(asc(leafWorker.workerId)));
    return rows.map(workerFromRaw);
  }

  claimOwnWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.exec.changedOne(
      db
        .update(leafWorker)
        .set({ instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, heartbeatAt: DB_NOW_MS })
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.nodeId, nodeId))),
      true, // run twice it still matches only our node's row
    );
  }

  claimFreeWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    // ON CONFLICT DO NOTHING: a duplicate key (another node won the id) is 0 rows, not an error.
    const insert = db
      .insert(leafWorker)
      .values({
        workerId,
        nodeId,
        instanceId,
        leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`,
        lastTimestamp: 0,
        heartbeatAt: DB_NOW_MS,
      })
      .onConflictDoNothing();
    // Not retried after an unknown outcome: a second run would say "taken" about our own row. The next
    // acquisition finds the row under our node id instead (claimOwnWorker).
    return this.exec.changedOne(insert, false);
  }

  claimExpiredWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.exec.changedOne(
      db
        .update(leafWorker)
        .set({ nodeId, instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, heartbeatAt: DB_NOW_MS })
        .where(and(eq(leafWorker.workerId, workerId), lt(leafWorker.leaseExpiresAt, DB_NOW_MS))),
      false, // as claimFreeWorker: a second run would find the lease live (ours) and say no
    );
  }

  async readWorkerFence(workerId: number, instanceId: string): Promise<number | undefined> {
    const rows = await this.exec.read<Array<Pick<RawWorkerRow, 'last_timestamp'>>>(
      db
        .select({ lastTimestamp: leafWorker.lastTimestamp })
        .from(leafWorker)
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId))),
    );
    return rows[0] === undefined ? undefined : Number(rows[0].last_timestamp);
  }

  renewWorker(workerId: number, instanceId: string, leaseMs: number, reserveUntilMs: number): Promise<boolean> {
    return this.exec.changedOne(
      db
        .update(leafWorker)
        .set({
          leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`,
          heartbeatAt: DB_NOW_MS,
          lastTimestamp: sql`GREATEST(${leafWorker.lastTimestamp}, ${reserveUntilMs})`,
        })
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId))),
      // Idempotent (same instance, GREATEST), so retried — on the new primary too after a failover. Only an answered
      // renewal counts: when none comes within the attempts, this throws and the node keeps issuing only below its
      // old reservation.
      true,
    );
  }

  async releaseWorker(workerId: number, instanceId: string, lastTimestampMs: number): Promise<void> {
    await this.exec.write(
      db
        .update(leafWorker)
        .set({ leaseExpiresAt: 0, lastTimestamp: lastTimestampMs }) // the generator is stopped: what it used is the fence
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId))),
      true, // the same values again
    );
  }
}
