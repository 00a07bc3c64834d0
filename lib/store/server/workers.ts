import { sql } from 'drizzle-orm';
import type { WorkerRow, WorkerStore } from '../../snowflake/workerStore';
import type { ServerExecutor } from '../serverExecutor';
import { type RawWorkerRow, workerFromRaw } from '../rows/workers';
import type { ServerDialect } from './dialect';
import { TABLE } from './query';

/** leaf_worker on a server: each claim one conditional statement; times on the database clock. */
export class ServerWorkers implements WorkerStore {
  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {}

  async listWorkers(): Promise<WorkerRow[]> {
    return (await this.exec.read<RawWorkerRow>(sql`SELECT * FROM ${TABLE.worker} ORDER BY worker_id`)).map(
      workerFromRaw,
    );
  }

  claimOwnWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    const now = this.dialect.nowMs;
    return this.exec.changedOne(
      sql`UPDATE ${TABLE.worker} SET instance_id = ${instanceId}, lease_expires_at = ${now} + ${leaseMs},
          heartbeat_at = ${now} WHERE worker_id = ${workerId} AND node_id = ${nodeId}`,
      true, // run twice it still matches only our node's row
    );
  }

  claimFreeWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    const now = this.dialect.nowMs;
    // A duplicate key (another node won the id) is 0 rows, not an error. Not run again after an unknown outcome: a
    // second run would say "taken" about our own row; the next acquisition finds it under our node id instead.
    return this.exec.changedOne(
      this.dialect.insertIgnore(TABLE.worker, {
        worker_id: workerId,
        node_id: nodeId,
        instance_id: instanceId,
        lease_expires_at: sql`${now} + ${leaseMs}`,
        last_timestamp: 0,
        heartbeat_at: now,
      }),
      false,
    );
  }

  claimExpiredWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    const now = this.dialect.nowMs;
    return this.exec.changedOne(
      sql`UPDATE ${TABLE.worker} SET node_id = ${nodeId}, instance_id = ${instanceId},
          lease_expires_at = ${now} + ${leaseMs}, heartbeat_at = ${now}
          WHERE worker_id = ${workerId} AND lease_expires_at < ${now}`,
      false, // as claimFreeWorker: a second run would find the lease live (ours) and say no
    );
  }

  async readWorkerFence(workerId: number, instanceId: string): Promise<number | undefined> {
    const [row] = await this.exec.read<Pick<RawWorkerRow, 'last_timestamp'>>(
      sql`SELECT last_timestamp FROM ${TABLE.worker} WHERE worker_id = ${workerId} AND instance_id = ${instanceId}`,
    );
    return row === undefined ? undefined : Number(row.last_timestamp);
  }

  renewWorker(workerId: number, instanceId: string, leaseMs: number, reserveUntilMs: number): Promise<boolean> {
    const now = this.dialect.nowMs;
    return this.exec.changedOne(
      sql`UPDATE ${TABLE.worker} SET lease_expires_at = ${now} + ${leaseMs}, heartbeat_at = ${now},
          last_timestamp = GREATEST(last_timestamp, ${reserveUntilMs})
          WHERE worker_id = ${workerId} AND instance_id = ${instanceId}`,
      // Idempotent (same instance, GREATEST), so retried — on another host too (a Galera node, a new primary). Only
      // an answered renewal counts: when none comes, this throws and the node issues only below its old reservation.
      true,
    );
  }

  async releaseWorker(workerId: number, instanceId: string, lastTimestampMs: number): Promise<void> {
    // The generator is stopped: what it used is the fence. The same values again if run twice.
    await this.exec.write(
      sql`UPDATE ${TABLE.worker} SET lease_expires_at = 0, last_timestamp = ${lastTimestampMs}
          WHERE worker_id = ${workerId} AND instance_id = ${instanceId}`,
      true,
    );
  }
}
