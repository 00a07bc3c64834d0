/** One database host as /api/health and the console report it (the store's `hosts()`). */
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
  /** Why it is unreachable: a short driver code (ECONNREFUSED, TIMEOUT, …), never a driver message. */
  error?: string;
}

/**
 * What needs an operator's eye on one database host, in words; empty when healthy. One rule for both the health
 * route (any problem makes it `degraded`) and the console (which shows the words beside the colour).
 * Unreachable says it all; a Galera node is flagged when not Synced, outside the Primary component, or not ready.
 */
export function hostProblems(h: HostHealth): string[] {
  if (!h.reachable) return [h.error === undefined ? 'unreachable' : `unreachable (${h.error})`];
  const g = h.galera;
  if (g === undefined) return [];
  const problems: string[] = [];
  if (g.state !== 'Synced') problems.push(`not Synced (${g.state || 'no state'})`);
  if (g.clusterStatus !== 'Primary') problems.push(g.clusterStatus || 'no cluster status');
  if (!g.ready) problems.push('not accepting queries');
  return problems;
}
