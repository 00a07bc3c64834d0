import type { SegmentLoadRecord } from '../segment/buffer';
import type { TagSnapshot } from '../segment/engine';
import type { RatePoint } from '../metrics/rateTracker';
import type { SnowflakeStatus } from '../snowflake/node';
import type { HostHealth } from '../store/types';

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
