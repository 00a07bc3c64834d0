/** The fleet's wire types (a node's heartbeat, GET /api/admin/nodes); types only, safe in a client bundle. */

/** What the next segment of a tag is doing on one node. */
export const NEXT_STATES = ['ready', 'loading', 'failed', 'none'] as const;
export type NextSegmentState = (typeof NEXT_STATES)[number];

/** One tag on one node, as its heartbeat publishes it. */
export interface NodeTagState {
  /** IDs this node can still hand out without the database: the current segment's rest plus a loaded next one. */
  buffered: number;
  /** Step of the most recent segment (the dynamic step). */
  step: number;
  /** IDs per second over the last 10 s. */
  ratePerSec: number;
  next: NextSegmentState;
  /** IDs issued by this node since it started (a counter; the fleet's rate can be derived from two beats). */
  issued: number;
  /** IDs left in the current segment (`buffered` minus a loaded next one); null from a node too old to say. */
  current: number | null;
}

/** A node's snowflake worker, as its heartbeat publishes it. */
export interface NodeSnowflakeState {
  /** SnowflakeStatus['state'], or 'off'. */
  state: string;
  workerId: number | null;
  /** ISO; when the lease runs out unless renewed (node clock). null without a lease. */
  leaseExpiresAt: string | null;
  /** LEAF_WORKER_IDS, canonical (`512-1023`): the ids it may lease. Absent with snowflake off, and from older nodes. */
  workerIds?: string;
}

/** The JSON kept in `leaf_node.snapshot`, rewritten by each heartbeat. */
export interface NodeSnapshot {
  snowflake: NodeSnowflakeState;
  /** Only the tags this node holds a buffer for. */
  tags: Record<string, NodeTagState>;
}

/** `up` while heartbeating; `gone` when its heartbeats stopped without a goodbye; `stopped` after a graceful stop. */
export const NODE_STATES = ['up', 'gone', 'stopped'] as const;
export type NodeState = (typeof NODE_STATES)[number];

/** One node in `GET /api/admin/nodes`. */
export interface NodeView {
  nodeId: string;
  /** This process, among all processes that ever used nodeId. */
  instanceId: string;
  /** host:port where the node listens. */
  address: string;
  version: string;
  state: NodeState;
  /** ISO */
  startedAt: string;
  /** ISO, on the database's clock */
  lastHeartbeat: string;
  snowflake: NodeSnowflakeState;
  /** Per tag, with its runway (seconds its buffer lasts at the current rate; null when idle). */
  tags: Record<string, NodeTagState & { runwaySeconds: number | null }>;
}

/** A tag across the fleet (the `up` nodes only: a gone node's buffer serves nobody). */
export interface FleetTagView {
  /** Nodes holding a buffer for the tag. */
  nodesServing: number;
  ratePerSec: number;
  buffered: number;
  /** The shortest runway among the nodes that serve it with a rate (the first node to run dry); null when idle. */
  runwaySeconds: number | null;
}
