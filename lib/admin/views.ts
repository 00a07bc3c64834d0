import type { SegmentLoadRecord } from '../segment/buffer';
import type { TagSnapshot } from '../segment/snapshot';
import type { RatePoint } from '../metrics/rateTracker';
import type { RegionInfo } from '../settings/region';
import type { SnowflakeStatus } from '../snowflake/node';
import type { EncodingName } from '../opaque/encoding';
import type { Semantics } from '../segment/semantics';
import type { Ordering } from '../ordered/orderStore';
import type { OwnerView, PendingView } from './orderViews';
import type { AuditAction, AuditTagRow } from '../audit';
import type { AuditSemantics } from './auditStore';
import type { AuditEntryRow } from './auditStore';
import type { HostHealth } from './hostHealth';
import type { SemanticsSettings, SemanticsSwitch } from '../segment/semanticsStore';
import type { TokenRow } from '../auth/tokenStore';
import type { FleetTagView, NextSegmentState, NodeState } from '../fleet/types';

/** The admin API's wire types: one definition for the routes and the console (types only, safe in a client bundle). */

/** This node's engine state for a tag, plus its consumption rate. */
export type EngineView = Omit<TagSnapshot, 'bizTag'> & {
  /** IDs per second over the last 10 s. */
  ratePerSec: number;
};

export type SegmentView = NonNullable<EngineView['current']>;
export type PendingSegmentView = NonNullable<EngineView['pending']>;
export type LoadRecord = SegmentLoadRecord;
export type { RatePoint };

export interface StepPoint {
  t: number;
  step: number;
}

/** What the console shows of a tag: its row, and this node's engine state for it. */
export interface TagView {
  bizTag: string;
  /** Decimal string, like every ID on the wire. */
  maxId: string;
  step: number;
  description: string | null;
  /** Effective claim semantics: the tag's own setting, else the fleet default (GET /api/admin/semantics). */
  semantics: Semantics;
  updateTime: string;
  /** `opaque`/`opaque-js-safe`: IDs permuted under a key, fixed at creation (docs/design.md#opaque-tags). */
  encoding: EncodingName;
  /** An opaque tag's key fingerprint; null for plain. */
  keyId: string | null;
  /** `strict`: IDs increase across the whole fleet, served by one owner (docs/design.md#ordered-tags). */
  ordering: Ordering;
  /** When the change to strict completed (ISO): the order holds for every request sent since. Null otherwise. */
  strictSince: string | null;
  /** A change to strict that not every process has acknowledged yet, and whom it waits for; null otherwise. */
  pending: PendingView | null;
  /** A strict tag's owner; null otherwise, and before its first owner. */
  owner: OwnerView | null;
  /** null when this node holds no buffer for the tag. */
  engine: EngineView | null;
  /** The tag across the fleet's up nodes (from the node registry); null without one. */
  fleet?: FleetTagView | null;
}

/** Sort keys of GET /api/admin/tags (`sort=rate`, `sort=-rate` for descending). */
export const TAG_LIST_SORT_KEYS = ['name', 'rate', 'remaining', 'runway', 'maxId', 'updated'] as const;
export type TagListSortKey = (typeof TAG_LIST_SORT_KEYS)[number];

/** GET /api/admin/tags: one page of the searched, sorted list, and this node's totals over every tag. */
export interface TagListPage {
  tags: TagView[];
  /** Rows matching `q` (every row without it). */
  total: number;
  offset: number;
  limit: number;
  totals: {
    /** Every tag in the table, whatever `q` says. */
    tags: number;
    /** Tags this node holds a segment for. */
    loaded: number;
    /** IDs per second over every tag on this node. */
    ratePerSec: number;
  };
}

export interface TagDetail {
  tag: TagView;
  /** This node's own record: `rate` over the buckets it sampled, `steps` its segment loads (not range leases). */
  history: { rate: RatePoint[]; steps: StepPoint[]; loads: LoadRecord[] };
  /** The tag on every node that holds it; null without a node registry. */
  fleet?: TagFleetDetail | null;
}

/** The tag page's fleet part: each node's buffer and the runway warning threshold (histories: FleetTagHistory). */
export interface TagFleetDetail {
  nodes: NodeBufferView[];
  /** LEAF_RUNWAY_WARN_SECONDS */
  runwayWarnSeconds: number;
}

/** One node's buffer for one tag. */
export interface NodeBufferView {
  nodeId: string;
  address: string;
  state: NodeState;
  buffered: number;
  /** IDs left in the current segment; the rest of `buffered` is the loaded next one. Null from an older node. */
  current: number | null;
  step: number;
  ratePerSec: number;
  next: NextSegmentState;
  /** Seconds the buffer lasts at the node's rate; null when idle. */
  runwaySeconds: number | null;
}

/** One node's own record of a tag (GET /api/admin/tags/{tag}/history): IDs per bucket and its claims. */
export interface NodeTagHistory {
  nodeId: string;
  /** This process, among all that ever used nodeId. */
  instanceId: string;
  /** ms since the Unix epoch, on the node's clock */
  startedAt: number;
  bucketMs: number;
  /** Every bucket this node fully sampled, contiguous, oldest first; none it did not. */
  rate: RatePoint[];
  /** Its recent claims: segments (their step is the engine's step) and range leases (their size). */
  loads: LoadRecord[];
}

/** A fleet bucket: the IDs every node issued in it, or null when a node that may have issued could not be read. */
export interface FleetRatePoint {
  t: number;
  ids: number | null;
}

/** A node's part of the fleet's history: its own record, or why there is none. */
export interface FleetNodeHistory {
  nodeId: string;
  state: NodeState;
  history: NodeTagHistory | null;
  /** Why `history` is null (e.g. "did not answer within 2000 ms"); null when it was read. */
  missing: string | null;
}

/** GET /api/admin/tags/{tag}/history/fleet: every registered node's record, and their sum per bucket. */
export interface FleetTagHistory {
  bucketMs: number;
  nodes: FleetNodeHistory[];
  rate: FleetRatePoint[];
}

/** `GET /api/admin/fleet`: the whole fleet in one card. Rate, buffers and runway count the up nodes only. */
export interface FleetSummary {
  nodes: Record<NodeState, number>;
  ratePerSec: number;
  idsBuffered: number;
  /** The first buffer to run dry at the current rates; null when nothing is consumed. */
  shortestRunway: { bizTag: string; nodeId: string; seconds: number } | null;
  /** Tags whose shortest runway is below the threshold. */
  tagsBelowWarn: number;
  /** LEAF_RUNWAY_WARN_SECONDS */
  runwayWarnSeconds: number;
}

/** One tag on one node, in the Nodes page's expanded row. */
export interface NodeTagRow {
  bizTag: string;
  buffered: number;
  step: number;
  ratePerSec: number;
  next: NextSegmentState;
  runwaySeconds: number | null;
}

/** `GET /api/admin/nodes/{node}/tags?q=&limit=`: a page of one node's tags, shortest runway first. */
export interface NodeTagsPage {
  nodeId: string;
  state: NodeState;
  /** Tags matching `q` (all of them without one). */
  total: number;
  tags: NodeTagRow[];
}

export type { HostHealth };
export type HostGalera = NonNullable<HostHealth['galera']>;

/** The body of /api/health (public, no session): the node, its store and, for a database server, each host. */
export interface HealthView {
  /** `degraded`: the store does not answer, a host is unreachable, or a Galera node is not Synced. */
  status: 'ok' | 'degraded';
  store: {
    dialect: 'sqlite' | 'mysql' | 'postgres';
    /** The store as the engine uses it (MySQL, PostgreSQL: through the failover pool, whichever host answers). */
    reachable: boolean;
    latencyMs: number;
    error?: string;
    /** MySQL/MariaDB and PostgreSQL: every host of the URL on its own. */
    hosts?: HostHealth[];
  };
  tags: { known: number; loaded: number };
  lastRefreshAt: string | null;
  lastRefreshError: string | null;
  snowflake: SnowflakeStatus | { state: 'off' };
  /** This node's region and its database's identity (one region, 0 of 1, with regions off); null where none runs. */
  region: RegionInfo | null;
}

export type { AuditAction, AuditEntryRow, AuditSemantics, AuditTagRow, SemanticsSettings, SemanticsSwitch };

/** A per-tag access token as GET /api/admin/tokens lists it: never the token, never its hash. */
export type TokenView = TokenRow;

/** POST /api/admin/tokens: the new row and, this once, the token itself. */
export interface CreatedToken {
  token: TokenView;
  secret: string;
}

/** One entry of GET /api/admin/audit: an admin change or a login, as leaf_audit keeps it. */
export interface AuditEntryView {
  /** Grows with every entry; `?before=<id>` pages back from it. */
  id: number;
  /** ISO time on the recording node's clock. */
  at: string;
  action: AuditAction;
  /** null for logins and logouts. */
  bizTag: string | null;
  /** `token:<8 hex of sha256(token)>`, `session:<id>`, or `anonymous` for a failed login. */
  actor: string;
  /** The client's address as the recording node's socket saw it. */
  address: string;
  nodeId: string;
  /** The tag row before and after; null where absent. A semantics switch adds `semantics` (and `bumped`). */
  before: AuditEntryRow | null;
  after: AuditEntryRow | null;
}

/** Newest first; `nextBefore` is the `before` of the next (older) page, null on the last. */
export interface AuditPage {
  entries: AuditEntryView[];
  nextBefore: number | null;
}
