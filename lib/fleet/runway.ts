import type { FleetTagView, NodeState, NodeTagState } from './types';

/**
 * Runway: how long a buffer lasts at the current rate if the database went away now — the number Leaf's design
 * is built around (a step of 600 × peak QPS buys ten minutes of outage per segment).
 */

/** Seconds `buffered` IDs last at `ratePerSec`; null when the tag is idle (it would last for ever). */
export function runwaySeconds(buffered: number, ratePerSec: number): number | null {
  if (!(ratePerSec > 0)) return null;
  return buffered / ratePerSec;
}

/**
 * The step a tag needs so one segment outlasts `outageSeconds` (a database restart or failover) at its current
 * rate, or null when its current step already does (or it is idle). A node that has just loaded holds two
 * segments, but right after switching it holds one: one segment is what it can count on.
 */
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
