/**
 * Each Patroni node's role as a client of the cluster cares about it — primary, sync standby, async standby or
 * unreachable — from every node's own REST API (GET /patroni), plus whether a standby is streaming from the
 * primary (the primary's pg_stat_replication, which /patroni includes).
 */
import type { PatroniNode, PatroniStatus } from './patroniNode';

export type NodeRole = 'primary' | 'sync standby' | 'async standby' | 'unreachable';

export interface NodeRoleReport {
  index: number;
  name: string;
  role: NodeRole;
  /** Patroni's postgres state ("running", "starting", "stopped", …), or "no answer". */
  state: string;
  timeline?: number;
  /** A standby the primary's walsenders show streaming to (false for the primary and unreachable nodes). */
  streaming: boolean;
  /** The primary's view of this standby: "sync", "async", "potential", or undefined. */
  syncState?: string;
}

/** A node's role from its own status: unreachable unless its REST API answers and postgres is running. */
function roleOf(status: PatroniStatus | undefined): NodeRole {
  if (status === undefined || status.state !== 'running') return 'unreachable';
  if (status.role === 'master' || status.role === 'primary') return 'primary';
  return status.sync_standby === true ? 'sync standby' : 'async standby';
}

export async function nodeRoles(nodes: PatroniNode[], timeoutMs = 2_000): Promise<NodeRoleReport[]> {
  const statuses = await Promise.all(nodes.map((n) => n.status(timeoutMs)));
  const primaries = statuses.filter((s) => roleOf(s) === 'primary');
  // Two nodes both claiming primary (a stale one not yet demoted): trust neither's walsender list.
  const senders = primaries.length === 1 ? (primaries[0]?.replication ?? []) : [];
  return nodes.map((node, index) => {
    const status = statuses[index];
    const role = roleOf(status);
    const sender = senders.find((r) => r.application_name === node.name);
    return {
      index,
      name: node.name,
      role,
      state: status?.state ?? 'no answer',
      timeline: status?.timeline,
      streaming: role !== 'primary' && role !== 'unreachable' && sender?.state === 'streaming',
      syncState: sender?.sync_state,
    };
  });
}

export function describeRoles(reports: NodeRoleReport[]): string {
  return reports
    .map(
      (r) =>
        `${r.name}: ${r.role}${r.role === 'unreachable' ? ` (${r.state})` : ''}${r.streaming ? ', streaming' : ''}`,
    )
    .join('; ');
}
