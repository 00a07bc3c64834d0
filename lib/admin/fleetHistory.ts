import type { NodeView } from '../fleet/types';
import type { FleetNodeHistory, FleetRatePoint, FleetTagHistory, NodeTagHistory } from './views';

/**
 * The fleet's history of a tag, from each node's own record (its rate tracker and load log), merged by bucket. A
 * bucket is a sum only when every node that may have issued in it was read; otherwise it is null — a gap on the
 * chart, never a guess. Nodes bucket on their own clocks: skew between nodes moves IDs by that much.
 */

/** Reads one peer's own record; rejects with a one-line reason. */
export type ReadPeerHistory = (address: string, bizTag: string) => Promise<NodeTagHistory>;

export interface FleetHistorySources {
  /** This node's id, and its own record (read in-process). */
  selfId: string;
  own: NodeTagHistory;
  readPeer: ReadPeerHistory;
  bucketMs: number;
}

export async function fleetTagHistory(
  nodes: readonly NodeView[],
  bizTag: string,
  { selfId, own, readPeer, bucketMs }: FleetHistorySources,
): Promise<FleetTagHistory> {
  const members = await Promise.all(
    nodes.map(async (node): Promise<FleetMember> => {
      const base = {
        nodeId: node.nodeId,
        state: node.state,
        holdsTag: node.tags[bizTag] !== undefined,
        lastHeartbeat: Date.parse(node.lastHeartbeat),
      };
      if (node.nodeId === selfId) return { ...base, history: own, missing: null };
      if (node.state !== 'up') return { ...base, history: null, missing: `${node.state}: its record went with it` };
      try {
        const history = await readPeer(node.address, bizTag);
        if (history.bucketMs !== bucketMs) throw new Error(`it buckets by ${history.bucketMs} ms, not ${bucketMs}`);
        return { ...base, history, missing: null };
      } catch (error) {
        return { ...base, history: null, missing: (error as Error).message };
      }
    }),
  );
  return {
    bucketMs,
    nodes: members.map(({ nodeId, state, history, missing }): FleetNodeHistory => ({
      nodeId,
      state,
      history,
      missing,
    })),
    rate: mergeFleetRate(members, bucketMs),
  };
}

export interface FleetMember extends FleetNodeHistory {
  /** Its last heartbeat listed the tag: it held a buffer for it. */
  holdsTag: boolean;
  /** ms, database clock */
  lastHeartbeat: number;
}

/**
 * From the earliest bucket any node recorded to the latest: each bucket the sum of every node's IDs in it, or null
 * when a node's part is unknown. A node not read counts 0 only when that is certain: it never held the tag, or it
 * said goodbye (stopped) before the bucket began.
 */
export function mergeFleetRate(members: readonly FleetMember[], bucketMs: number): FleetRatePoint[] {
  const parts = members.map((m) => ({ m, byT: new Map((m.history?.rate ?? []).map((p) => [p.t, p.ids])) }));
  const recorded = members.flatMap((m) => m.history?.rate ?? []);
  if (recorded.length === 0) return [];
  const first = Math.min(...recorded.map((p) => p.t));
  const last = Math.max(...recorded.map((p) => p.t));
  const out: FleetRatePoint[] = [];
  for (let t = first; t <= last; t += bucketMs) {
    let sum: number | null = 0;
    for (const { m, byT } of parts) {
      const ids = byT.get(t) ?? certainZero(m, t) ?? null;
      if (ids === null) {
        sum = null;
        break;
      }
      sum += ids;
    }
    out.push({ t, ids: sum });
  }
  return out;
}

function certainZero(m: FleetMember, t: number): 0 | undefined {
  if (!m.holdsTag && m.history === null) return 0;
  if (m.history === null && m.state === 'stopped' && t >= m.lastHeartbeat) return 0;
  return undefined;
}
