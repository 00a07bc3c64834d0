/**
 * The bounded waits of the Patroni cluster (patroni.ts): for one writable leader, for every standby to stream,
 * for a restarted node to rejoin. Each polls the nodes' REST APIs, logs progress every 5 s, and on timeout
 * throws with every node's role and its Patroni and postgres log tails.
 */
import type { Log } from './apt';
import type { PatroniNode } from './patroniNode';
import { type NodeRoleReport, describeRoles, nodeRoles } from './patroniRoles';
import { pollFor } from './wait';

async function poll<T>(
  nodes: PatroniNode[],
  o: { timeoutMs: number; what: string; log?: Log },
  check: (reports: NodeRoleReport[]) => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const started = Date.now();
  let nextReport = started + 5_000;
  let last: NodeRoleReport[] = [];
  const done = await pollFor(o.timeoutMs, async () => {
    if (nodes.every((n) => !n.isRunning))
      throw new Error(
        `${o.what}: no node is running (${nodes.map((n) => `${n.name} ${n.lastExit() ?? 'stopped'}`).join(', ')})\n${tails(nodes)}`,
      );
    last = await nodeRoles(nodes);
    const value = await check(last);
    if (value === undefined && Date.now() > nextReport) {
      nextReport += 5_000;
      o.log?.(`not ${o.what} yet after ${((Date.now() - started) / 1000).toFixed(0)} s: ${describeRoles(last)}`);
    }
    return value;
  });
  if (done === undefined)
    throw new Error(`not ${o.what} within ${o.timeoutMs} ms: ${describeRoles(last)}\n${tails(nodes)}`);
  return done;
}

/** nodes[i], or an error naming the index. */
function nodeAt(nodes: PatroniNode[], i: number): PatroniNode {
  const node = nodes[i];
  if (node === undefined) throw new Error(`no node ${i} (nodes are 0…${nodes.length - 1})`);
  return node;
}

function tails(nodes: PatroniNode[]): string {
  return nodes.map((n) => n.tail()).join('\n');
}

/** Exactly one writable primary, not `not`, that the DCS names as leader; its index. */
export function waitForLeader(
  nodes: PatroniNode[],
  o: { not?: number; timeoutMs: number; what?: string; log?: Log },
): Promise<number> {
  return poll(nodes, { timeoutMs: o.timeoutMs, what: o.what ?? 'led by one primary', log: o.log }, async (reports) => {
    const primaries = reports.filter((r) => r.role === 'primary');
    const primary = primaries[0];
    if (primaries.length !== 1 || primary === undefined || primary.index === o.not) return undefined;
    const view = await nodeAt(nodes, primary.index).clusterView();
    const leader = view?.members.find((m) => m.role === 'leader');
    return leader?.name === primary.name ? primary.index : undefined;
  });
}

/** Every running standby streams from the one primary; in synchronous mode one of them is the sync standby. */
export async function waitForReplicasStreaming(
  nodes: PatroniNode[],
  synchronous: boolean,
  timeoutMs: number,
  log?: Log,
): Promise<void> {
  await poll(nodes, { timeoutMs, what: 'streaming to every standby', log }, (reports) => {
    const primaries = reports.filter((r) => r.role === 'primary');
    const primary = primaries[0];
    if (primaries.length !== 1 || primary === undefined) return undefined;
    const standbys = reports.filter((r) => r.index !== primary.index && nodeAt(nodes, r.index).isRunning);
    if (!standbys.every((r) => r.streaming)) return undefined;
    if (
      synchronous &&
      standbys.length > 0 &&
      !standbys.some((r) => r.role === 'sync standby' && r.syncState === 'sync')
    )
      return undefined;
    return true;
  });
}

/** Node i is running again: a streaming standby, or the primary. */
export async function waitNodeJoined(nodes: PatroniNode[], i: number, timeoutMs: number, log?: Log): Promise<void> {
  const node = nodeAt(nodes, i);
  await poll(nodes, { timeoutMs, what: `${node.name} rejoined`, log }, (reports) => {
    if (!node.isRunning)
      throw new Error(`${node.name} ${node.lastExit() ?? 'stopped'} before it rejoined\n${node.tail()}`);
    const r = reports[i];
    if (r === undefined) throw new Error(`no role report for ${node.name} (${reports.length} reports)`);
    return r.role === 'primary' || r.streaming ? true : undefined;
  });
}

/** One primary, every running standby streaming asynchronously, and none named sync standby (synchronous_mode off). */
export async function waitNoSyncStandby(nodes: PatroniNode[], timeoutMs: number, log?: Log): Promise<void> {
  await poll(nodes, { timeoutMs, what: 'asynchronous everywhere', log }, (reports) => {
    const primaries = reports.filter((r) => r.role === 'primary');
    const primary = primaries[0];
    if (primaries.length !== 1 || primary === undefined) return undefined;
    const standbys = reports.filter((r) => r.index !== primary.index && nodeAt(nodes, r.index).isRunning);
    return standbys.every((r) => r.role === 'async standby' && r.streaming && r.syncState === 'async')
      ? true
      : undefined;
  });
}
