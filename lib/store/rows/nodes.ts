/** leaf_node rows as the server drivers read them (SQLite's repository reads its own through drizzle). */
import type { NodeRow } from '../../fleet/nodeStore';

export interface RawNodeRow {
  node_id: string;
  instance_id: string;
  address: string;
  version: string;
  started_at: string;
  heartbeat_at: string;
  state: string;
  snapshot: string;
}

/** leaf_node's columns but the snapshot: what a list without snapshots reads. */
export const NODE_COLUMNS = ['node_id', 'instance_id', 'address', 'version', 'started_at', 'heartbeat_at', 'state'];

export function nodeFromRaw(r: RawNodeRow): NodeRow {
  return {
    nodeId: r.node_id,
    instanceId: r.instance_id,
    address: r.address,
    version: r.version,
    // ms timestamps: far below 2^53, so Number is exact.
    startedAt: Number(r.started_at),
    heartbeatAt: Number(r.heartbeat_at),
    state: r.state,
    snapshot: r.snapshot,
  };
}
