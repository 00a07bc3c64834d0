/** A `leaf_node` row. Times are ms since the Unix epoch; heartbeatAt on the database's clock. */
export interface NodeRow {
  nodeId: string;
  instanceId: string;
  address: string;
  version: string;
  startedAt: number;
  heartbeatAt: number;
  /** As stored: `up` or `stopped` (gone is derived from heartbeatAt by the reader). */
  state: string;
  /** The node's encoded snapshot (snapshotCodec.ts). */
  snapshot: string;
}

/** What a process writes when it registers. */
export type NodeRegistration = Pick<
  NodeRow,
  'nodeId' | 'instanceId' | 'address' | 'version' | 'startedAt' | 'snapshot'
>;

/** The fleet registry's database port: each claim of an identity is conditional, times on the database clock. */
export interface NodeStore {
  /** Inserts the row, or takes it if ours, stopped, or silent past `goneMs`; false while another holds it live. */
  registerNode(reg: NodeRegistration, goneMs: number): Promise<boolean>;
  /** Takes a row only while exactly as we last saw it (its holder died without a goodbye). */
  takeOverNode(reg: NodeRegistration, seen: Pick<NodeRow, 'instanceId' | 'heartbeatAt'>): Promise<boolean>;
  /** The heartbeat: heartbeat_at = now, state `up`, and the snapshot unless null (unchanged). False when not ours. */
  beatNode(nodeId: string, instanceId: string, snapshot: string | null): Promise<boolean>;
  /** Graceful stop: state `stopped`, if the row is still ours. */
  stopNode(nodeId: string, instanceId: string): Promise<void>;
  getNode(nodeId: string): Promise<NodeRow | undefined>;
  /** Every row with the database clock of the same query; without snapshots, cheap enough for a scrape. */
  listNodes(withSnapshots?: boolean): Promise<{ dbNow: number; rows: NodeRow[] }>;
  /** Deletes rows whose last heartbeat is older than `olderThanMs` (gone or stopped long ago); how many went. */
  pruneNodes(olderThanMs: number): Promise<number>;
}
