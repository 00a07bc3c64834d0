/** leaf_worker rows as the server drivers read them (SQLite's repository reads its own through drizzle). */
import type { WorkerRow } from '../../snowflake/workerStore';

export interface RawWorkerRow {
  worker_id: number;
  node_id: string;
  instance_id: string;
  lease_expires_at: string;
  last_timestamp: string;
  heartbeat_at: string;
}

export function workerFromRaw(r: RawWorkerRow): WorkerRow {
  return {
    workerId: r.worker_id,
    nodeId: r.node_id,
    instanceId: r.instance_id,
    // ms timestamps: far below 2^53, so Number is exact.
    leaseExpiresAt: Number(r.lease_expires_at),
    lastTimestamp: Number(r.last_timestamp),
    heartbeatAt: Number(r.heartbeat_at),
  };
}
