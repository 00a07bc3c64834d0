/** A `leaf_worker` row. Times are ms since the Unix epoch, on the database's clock. */
export interface WorkerRow {
  workerId: number;
  nodeId: string;
  instanceId: string;
  leaseExpiresAt: number;
  lastTimestamp: number;
  heartbeatAt: number;
}

/** Worker-id leasing's database port: each claim conditional, lease times on the database clock. */
export interface WorkerStore {
  listWorkers(): Promise<WorkerRow[]>;
  /** Re-takes `workerId` if its row still names `nodeId` (a restart), live lease or not. */
  claimOwnWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean>;
  /** Inserts a row for a never-used id; false if another node got there first. */
  claimFreeWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean>;
  /** Takes over `workerId` only if its lease has expired on the database clock. */
  claimExpiredWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean>;
  /** The fence of an id this instance holds, read after the claim so no earlier holder can move it. */
  readWorkerFence(workerId: number, instanceId: string): Promise<number | undefined>;
  /** Extends the lease and raises the fence to `reserveUntilMs`; false when the lease is no longer ours. */
  renewWorker(workerId: number, instanceId: string, leaseMs: number, reserveUntilMs: number): Promise<boolean>;
  /** Graceful stop: fence at the last timestamp used, lease ended, so a restart can reuse it at once. */
  releaseWorker(workerId: number, instanceId: string, lastTimestampMs: number): Promise<void>;
}
