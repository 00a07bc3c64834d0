import type { HostHealth } from '../store/leafStore';

/**
 * What needs an operator's eye on one database host, in words; empty when healthy. One rule for both the health
 * route (any problem makes it `degraded`) and the console (which shows the words beside the colour).
 * Unreachable says it all; a Galera node is flagged when not Synced, outside the Primary component, or not ready;
 * a PostgreSQL primary of several hosts when no commit waits for a standby (asynchronous replication only).
 */
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
