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
  /** PostgreSQL: what the host is now; only the primary takes writes. */
  postgres?: {
    role: 'primary' | 'sync standby' | 'async standby' | 'standby';
    /** The primary, when the URL lists several hosts: whether a commit waits for a synchronous standby. */
    synchronous?: boolean;
  };
  /** Why it is unreachable: a short driver code (ECONNREFUSED, TIMEOUT, …), never a driver message. */
  error?: string;
}

/** What needs an operator's eye on one host, in words (health's `degraded` and the console); empty when healthy. */
export function hostProblems(h: HostHealth): string[] {
  if (!h.reachable) return [h.error === undefined ? 'unreachable' : `unreachable (${h.error})`];
  if (h.postgres?.synchronous === false) return ['no synchronous standby: a failover can lose acknowledged claims'];
  const g = h.galera;
  if (g === undefined) return [];
  const problems: string[] = [];
  if (g.state !== 'Synced') problems.push(`not Synced (${g.state || 'no state'})`);
  if (g.clusterStatus !== 'Primary') problems.push(g.clusterStatus || 'no cluster status');
  if (!g.ready) problems.push('not accepting queries');
  return problems;
}
