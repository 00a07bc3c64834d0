import type { WorkerRow } from '../../snowflake/workerStore';

/**
 * Shapes of one table's rows: `Raw…Row` as mysql2 and pg answer them (column names, BIGINTs as decimal strings),
 * `…Stored` as drizzle answers SQLite (field names), and the mapper from each to the domain row.
 */

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
