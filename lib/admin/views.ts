import type { SegmentLoadRecord } from '../segment/buffer';
import type { TagSnapshot } from '../segment/engine';
import type { RatePoint } from '../metrics/rateTracker';
import type { SnowflakeStatus } from '../snowflake/node';
import type { AuditAction, AuditTagRow, HostHealth } from '../store/types';

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
  updateTime: string;
  /** null when this node holds no buffer for the tag. */
  engine: EngineView | null;
}

export interface TagDetail {
  tag: TagView;
  history: { rate: RatePoint[]; steps: StepPoint[]; loads: LoadRecord[] };
}

export type { HostHealth };
export type HostGalera = NonNullable<HostHealth['galera']>;

/** The body of /api/health (public, no session): the node, its store and, for MySQL/MariaDB, each host. */
export interface HealthView {
  /** `degraded`: the store does not answer, a host is unreachable, or a Galera node is not Synced. */
  status: 'ok' | 'degraded';
  store: {
    dialect: 'sqlite' | 'mysql';
    /** The store as the engine uses it (MySQL: through the failover pool, whichever host answers). */
    reachable: boolean;
    latencyMs: number;
    error?: string;
    /** MySQL/MariaDB only: every host of the URL on its own. */
    hosts?: HostHealth[];
  };
  tags: { known: number; loaded: number };
  lastRefreshAt: string | null;
  lastRefreshError: string | null;
  snowflake: SnowflakeStatus | { state: 'off' };
}

export type { AuditAction, AuditTagRow };

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
  /** The tag row before and after the change; null where absent (before a create, after a delete, logins). */
  before: AuditTagRow | null;
  after: AuditTagRow | null;
}

/** Newest first; `nextBefore` is the `before` of the next (older) page, null on the last. */
export interface AuditPage {
  entries: AuditEntryView[];
  nextBefore: number | null;
}
