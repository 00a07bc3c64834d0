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

/**
 * The database primitives of the fleet registry (its port; registry.ts composes them). Each claim of an identity is
 * conditional in the database, so two processes racing for one node id cannot both win it; times on its clock.
 */
export interface NodeStore {
  /**
   * Claims `nodeId` for this instance: inserts the row, or takes it only if it is already ours, `stopped`, or its
   * heartbeat is older than `goneMs`. False when a live row of another instance holds it.
   */
  registerNode(reg: NodeRegistration, goneMs: number): Promise<boolean>;
  /**
   * Takes a row another instance left, only while it is exactly as we last saw it (`instanceId`, `heartbeatAt`):
   * its holder died without a goodbye. False when it moved (the holder lives, or someone else took it).
   */
  takeOverNode(reg: NodeRegistration, seen: Pick<NodeRow, 'instanceId' | 'heartbeatAt'>): Promise<boolean>;
  /** The heartbeat: heartbeat_at = now, state `up`, and the snapshot unless null (unchanged). False when not ours. */
  beatNode(nodeId: string, instanceId: string, snapshot: string | null): Promise<boolean>;
  /** Graceful stop: state `stopped`, if the row is still ours. */
  stopNode(nodeId: string, instanceId: string): Promise<void>;
  getNode(nodeId: string): Promise<NodeRow | undefined>;
  /**
   * Every row, and the database's clock read by the same query (to tell who is gone). Without snapshots (each
   * `snapshot` empty) it is cheap enough for a metrics scrape.
   */
  listNodes(withSnapshots?: boolean): Promise<{ dbNow: number; rows: NodeRow[] }>;
  /** Deletes rows whose last heartbeat is older than `olderThanMs` (gone or stopped long ago); how many went. */
  pruneNodes(olderThanMs: number): Promise<number>;
}
