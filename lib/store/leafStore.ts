import type { AuditStore } from '../admin/auditStore';
import type { TagStore } from '../segment/tagStore';
import type { TokenStore } from '../auth/tokenStore';
import type { NodeStore } from '../fleet/nodeStore';
import type { FormatStore } from '../format/formatStore';
import type { SemanticsStore } from '../segment/semanticsStore';
import type { WorkerStore } from '../snowflake/workerStore';

/**
 * What a leaf-ts node holds of its database: one small repository per concern, each the port its user declares
 * (`store.tags` for the segment engine and the admin API, `store.workers` for the snowflake node, …), and the
 * database itself (which, whether it answers, its hosts, closing it).
 */
export interface LeafStore {
  readonly dialect: 'sqlite' | 'mysql' | 'postgres';
  readonly tags: TagStore;
  readonly semantics: SemanticsStore;
  readonly workers: WorkerStore;
  readonly nodes: NodeStore;
  readonly formats: FormatStore;
  readonly tokens: TokenStore;
  readonly audit: AuditStore;
  ping(): Promise<void>;
  /**
   * Each database host on its own (MySQL/MariaDB, PostgreSQL: every host of the URL, probed in parallel, each within
   * `timeoutMs`). Absent where there is no host to speak of (SQLite).
   */
  hosts?(timeoutMs?: number): Promise<HostHealth[]>;
  close(): Promise<void>;
}

/** One database host as `hosts()` answers it, for /api/health and the console (lib/admin/hostHealth.ts reads it). */
export interface HostHealth {
  /** host:port */
  host: string;
  reachable: boolean;
  /** Connect plus `SELECT 1` on a fresh connection; up to the failure when unreachable. */
  latencyMs: number;
  /** Present on a Galera node only. */
  galera?: {
    /** wsrep_local_state_comment: `Synced`, `Donor/Desynced`, `Joining`, … */
    state: string;
    /** wsrep_cluster_size */
    clusterSize: number;
    /** wsrep_ready = ON: the node accepts queries. */
    ready: boolean;
    /** wsrep_cluster_status: `Primary`, `non-Primary`, `Disconnected`. */
    clusterStatus: string;
  };
  /**
   * Present on PostgreSQL: what the host is now. Only the primary takes writes. A standby is `sync standby` or
   * `async standby` when the primary's pg_stat_replication says so (readable with pg_monitor), else `standby`.
   */
  postgres?: {
    role: 'primary' | 'sync standby' | 'async standby' | 'standby';
    /** The primary, when the URL lists several hosts: whether a commit waits for a synchronous standby. */
    synchronous?: boolean;
  };
  /** Why it is unreachable: a short driver code (ECONNREFUSED, TIMEOUT, …), never a driver message. */
  error?: string;
}
