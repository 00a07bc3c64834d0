/** The settings a node runs with (lib/config.ts reads and checks them): types only, for whatever takes them. */
import type { LogLevel } from './log';
import type { OpaqueKeyRing } from './opaque/keyRing';
import type { MetricsTagSelection } from './metrics/tagSelection';
import type { Semantics } from './segment/semantics';
import type { RegionConfig } from './settings/region';
import type { SnowflakeLayout } from './snowflake/layout';
import type { WorkerIdSet } from './snowflake/workerIds';
import type { StoreTarget } from './store/target';

export interface LeafConfig {
  port: number;
  host: string;
  /** Next in development mode (NODE_ENV is not `production`). */
  dev: boolean;
  fastLane: boolean;
  /** LEAF_GIVE_BACK: a graceful stop gives back the unused top of each tag's latest claim (lib/segment/giveBack.ts). */
  giveBack: boolean;
  /**
   * The claim log (lib/claims/): LEAF_RANGE_LEASE_VALID_MS, how long a client may use a range lease from when it
   * asked (so how long after this node stops serving a segment its IDs may still be handed out); LEAF_CLAIM_LOG_DAYS,
   * how long a retired claim's row is kept.
   */
  claimLog: { leaseValidMs: number; days: number };
  logLevel: LogLevel;
  /** Processes on one port (node:cluster). */
  workers: number;
  /** This process's index among the cluster's workers; null outside a cluster. */
  workerIndex: number | null;
  /** DATABASE_URL (a server, or `file:`) else LEAF_SQLITE_FILE; LEAF_MIGRATIONS_DIR. */
  store: StoreTarget;
  /** Where a generated admin token is kept. */
  dataDir: string;
  /** LEAF_ADMIN_TOKEN; null: generated at first start into `dataDir`. */
  adminToken: string | null;
  /** LEAF_ID_TOKEN; when set, the ID routes need `Authorization: Bearer <it>`. */
  idToken: string | null;
  /** LEAF_OPAQUE_KEY (or its file) and the retired keys: what opaque tags are permuted with; null: none served here. */
  opaqueKeys: OpaqueKeyRing | null;
  /** LEAF_TOKEN_REFRESH_MS: how often each node re-reads the access tokens (the bound on a revoke reaching it). */
  tokenRefreshMs: number;
  snowflake: SnowflakeConfig;
  /** This node in the fleet registry (`leaf_node`). */
  node: NodeConfig;
  /** Strict tags' owner leases (LEAF_ORDER_*; docs/design.md#ordered-tags). */
  ordered: OrderedConfig;
  /** `/api/bench/constant`, the benchmark's Next ceiling. */
  benchRoutes: boolean;
  /** LEAF_RUNWAY_WARN_SECONDS: a shorter runway (buffer without the database) is a warning in the console. */
  runwayWarnSeconds: number;
  /** LEAF_METRICS_TAGS: which tags get per-tag series in /api/metrics. */
  metricsTags: MetricsTagSelection;
  /** LEAF_SEGMENT_SEMANTICS: the fleet default made so at start, before serving; null: the database decides. */
  segmentSemantics: Semantics | null;
  /** LEAF_REGION of LEAF_REGIONS: each region its own database, its IDs apart from every other region's. */
  region: RegionConfig;
  /** LEAF_TRUSTED_PROXIES: load balancers whose X-Forwarded-For names the client (lib/trustedProxies.ts). */
  trustedProxies: string[];
  /**
   * LEAF_REQUEST_TIMEOUT_MS: a request's headers and body must arrive within it, else 408 and the connection
   * closes — a slow client holds no connection for minutes.
   */
  requestTimeoutMs: number;
}

export interface SnowflakeConfig {
  enabled: boolean;
  epochMs: number;
  /** LEAF_SNOWFLAKE_MIN_ID: every snowflake ID sorts above it; a node whose clock has not passed it refuses to start. */
  minId: bigint | null;
  leaseMs: number;
  /** LEAF_WORKER_IDS: the only worker ids this node leases (default all the layout has, 0–1023 in Leaf's). */
  workerIds: WorkerIdSet;
  /** LEAF_SNOWFLAKE_LAYOUT: time unit and bits (default Leaf's 41/10/12 in ms). */
  layout: SnowflakeLayout;
}

export interface NodeConfig {
  /** Unique among live nodes: LEAF_NODE_ID, else hostname:PORT (plus `#i` for a cluster worker). */
  id: string;
  /** host:port where this node listens, as other operators see it (the hostname when HOST is a wildcard). */
  address: string;
  heartbeatMs: number;
  /** A node whose heartbeat is older than this (database clock) is shown as gone, and its identity may be taken. */
  goneMs: number;
  /** Gone or stopped rows older than this are deleted. */
  pruneMs: number;
}

export interface OrderedConfig {
  /** LEAF_ORDER_LEASE_MS: an owner's lease on the database clock. */
  leaseMs: number;
  /** LEAF_ORDER_MARGIN_MS: the owner stops this early, a successor starts this late (covers clock-rate drift). */
  marginMs: number;
  /** LEAF_ORDER_POLL_MS: how often each node reads leaf_order. */
  pollMs: number;
  /**
   * LEAF_ORDER_CLIENT_LEASE_MS: how long a `@leaf-ts/client` may hand out leased IDs on one renewal; a change to strict
   * waits at most this long (and a tenth) for a client that stopped renewing.
   */
  clientLeaseMs: number;
}
