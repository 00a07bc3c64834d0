import type { FleetTagView, NodeState, NodeTagState } from './types';

/** How long a buffer lasts at the current rate without the database (a step of 600 × QPS buys ten minutes). */

/** Seconds `buffered` IDs last at `ratePerSec`; null when the tag is idle (it would last for ever). */
export function runwaySeconds(buffered: number, ratePerSec: number): number | null {
  if (!(ratePerSec > 0)) return null;
  return buffered / ratePerSec;
}

/** The step that makes one segment outlast `outageSeconds` at the current rate; null when it already does or idle. */
export function stepNeeded(step: number, ratePerSec: number, outageSeconds: number): number | null {
  if (!(ratePerSec > 0)) return null;
  const needed = Math.ceil(ratePerSec * outageSeconds);
  return step >= needed ? null : needed;
}

/** A tag across the `up` nodes: summed rate and buffer, and the shortest runway (the first node to run dry). */
export function fleetTag(
  nodes: readonly { state: NodeState; tags: Record<string, NodeTagState> }[],
  bizTag: string,
): FleetTagView {
  let nodesServing = 0;
  let ratePerSec = 0;
  let buffered = 0;
  let shortest: number | null = null;
  for (const node of nodes) {
    if (node.state !== 'up') continue;
    const t: NodeTagState | undefined = node.tags[bizTag];
    if (t === undefined) continue;
    nodesServing += 1;
    ratePerSec += t.ratePerSec;
    buffered += t.buffered;
    const r = runwaySeconds(t.buffered, t.ratePerSec);
    if (r !== null && (shortest === null || r < shortest)) shortest = r;
  }
  return { nodesServing, ratePerSec, buffered, runwaySeconds: shortest };
}
