import { LeafError } from '../errors';
import { fleetTag, runwaySeconds } from '../fleet/runway';
import type { NodeState, NodeTagState, NodeView } from '../fleet/types';
import type { FleetSummary, NodeBufferView, NodeTagRow, NodeTagsPage, TagFleetDetail, TagView } from './views';

/** The fleet as the console shows it: plain functions over the registry's nodes. */

/** Each tag view with its fleet totals (summed over the `up` nodes). */
export function withFleet(tags: TagView[], nodes: readonly NodeView[]): TagView[] {
  return tags.map((t) => ({ ...t, fleet: fleetTag(nodes, t.bizTag) }));
}

/** Every node that holds a buffer for `bizTag` (gone ones too, marked: they show where IDs went), shortest runway first. */
export function tagNodes(nodes: readonly NodeView[], bizTag: string): NodeBufferView[] {
  const rows: NodeBufferView[] = [];
  for (const node of nodes) {
    const t = node.tags[bizTag];
    if (t === undefined) continue;
    rows.push({
      nodeId: node.nodeId,
      address: node.address,
      state: node.state,
      buffered: t.buffered,
      current: t.current,
      step: t.step,
      ratePerSec: t.ratePerSec,
      next: t.next,
      runwaySeconds: runwaySeconds(t.buffered, t.ratePerSec),
    });
  }
  return rows.sort(
    (a, b) =>
      stateRank(a.state) - stateRank(b.state) ||
      byRunway(a.runwaySeconds, b.runwaySeconds) ||
      a.nodeId.localeCompare(b.nodeId),
  );
}

/** The whole fleet in one card: nodes by state, and the up nodes' rate, buffers and the first buffer to run dry. */
export function fleetSummary(nodes: readonly NodeView[], runwayWarnSeconds: number): FleetSummary {
  const count: Record<NodeState, number> = { up: 0, gone: 0, stopped: 0 };
  let ratePerSec = 0;
  let idsBuffered = 0;
  let shortest: FleetSummary['shortestRunway'] = null;
  const warned = new Set<string>();
  for (const node of nodes) {
    count[node.state] += 1;
    if (node.state !== 'up') continue;
    for (const [bizTag, t] of Object.entries(node.tags)) {
      ratePerSec += t.ratePerSec;
      idsBuffered += t.buffered;
      const r = runwaySeconds(t.buffered, t.ratePerSec);
      if (r === null) continue;
      if (r < runwayWarnSeconds) warned.add(bizTag);
      if (shortest === null || r < shortest.seconds) shortest = { bizTag, nodeId: node.nodeId, seconds: r };
    }
  }
  return {
    nodes: count,
    ratePerSec,
    idsBuffered,
    shortestRunway: shortest,
    tagsBelowWarn: warned.size,
    runwayWarnSeconds,
  };
}

export const NODE_TAGS_LIMIT = 50;
export const NODE_TAGS_MAX_LIMIT = 500;

/** A page of one node's tags (it may hold 10,000): matching `q`, shortest runway first. */
export function nodeTagsPage(
  nodes: readonly NodeView[],
  nodeId: string,
  query: { q?: string; limit?: number },
): NodeTagsPage {
  const node = nodes.find((n) => n.nodeId === nodeId);
  if (node === undefined) throw new LeafError('node_not_found', `There is no node "${nodeId}" in the registry.`);
  const q = (query.q ?? '').toLowerCase();
  const limit = Math.min(Math.max(1, query.limit ?? NODE_TAGS_LIMIT), NODE_TAGS_MAX_LIMIT);
  const matching: NodeTagRow[] = [];
  for (const [bizTag, t] of Object.entries(node.tags)) {
    if (q !== '' && !bizTag.toLowerCase().includes(q)) continue;
    matching.push(tagRow(bizTag, t));
  }
  matching.sort((a, b) => byRunway(a.runwaySeconds, b.runwaySeconds) || a.bizTag.localeCompare(b.bizTag));
  return { nodeId, state: node.state, total: matching.length, tags: matching.slice(0, limit) };
}

function tagRow(bizTag: string, t: NodeTagState): NodeTagRow {
  return {
    bizTag,
    buffered: t.buffered,
    step: t.step,
    ratePerSec: t.ratePerSec,
    next: t.next,
    runwaySeconds: runwaySeconds(t.buffered, t.ratePerSec),
  };
}

/** Shortest first; idle (null: lasts for ever) last. */
function byRunway(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a - b;
}

function stateRank(state: NodeState): number {
  return state === 'up' ? 0 : state === 'gone' ? 1 : 2;
}

/** The tag page's fleet part: every node's buffer for the tag (its history: GET …/history/fleet). */
export function tagFleetDetail(nodes: readonly NodeView[], bizTag: string, runwayWarnSeconds: number): TagFleetDetail {
  return { nodes: tagNodes(nodes, bizTag), runwayWarnSeconds };
}
