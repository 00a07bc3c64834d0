import type { Clock } from '../clock';
import type { NodeView } from '../fleet/types';
import type { NodeRateHistory, RatePoint } from './views';

/** A tag's consumption per node, from the heartbeats' `issued` counters, sampled while the tag page asks. */

interface Beat {
  instanceId: string;
  at: number;
  issued: number;
}

interface TagHistory {
  last: Map<string, Beat>;
  /** nodeId → bucket start → IDs */
  buckets: Map<string, Map<number, number>>;
}

export interface FleetRateHistoryOptions {
  clock: Clock;
  bucketMs?: number;
  keepMs?: number;
  maxTags?: number;
}

export class FleetRateHistory {
  private readonly tags = new Map<string, TagHistory>();
  private readonly clock: Clock;
  private readonly bucketMs: number;
  private readonly keepMs: number;
  private readonly maxTags: number;

  constructor({ clock, bucketMs = 5_000, keepMs = 15 * 60_000, maxTags = 50 }: FleetRateHistoryOptions) {
    this.clock = clock;
    this.bucketMs = bucketMs;
    this.keepMs = keepMs;
    this.maxTags = maxTags;
  }

  /** Takes the tag's counters from the nodes' latest beats. */
  observe(bizTag: string, nodes: readonly NodeView[]): void {
    const h = this.touch(bizTag);
    for (const node of nodes) {
      const t = node.tags[bizTag];
      const at = Date.parse(node.lastHeartbeat);
      if (t === undefined || !Number.isFinite(at)) continue;
      const prev = h.last.get(node.nodeId);
      const beat: Beat = { instanceId: node.instanceId, at, issued: t.issued };
      if (prev !== undefined && at <= prev.at) continue; // the same beat again
      h.last.set(node.nodeId, beat);
      // A restarted process counts from zero again, and a gap longer than the window says nothing about the window.
      if (
        prev === undefined ||
        prev.instanceId !== beat.instanceId ||
        beat.issued < prev.issued ||
        at - prev.at > this.keepMs
      )
        continue;
      this.spread(h, node.nodeId, prev.at, at, beat.issued - prev.issued);
    }
    this.prune(h);
  }

  /** Per node, its IDs per bucket (buckets without IDs are left out), nodes by id. */
  history(bizTag: string): NodeRateHistory[] {
    const h = this.tags.get(bizTag);
    if (h === undefined) return [];
    this.prune(h);
    return [...h.buckets.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([nodeId, buckets]) => ({
        nodeId,
        points: [...buckets.entries()].sort(([a], [b]) => a - b).map(([t, ids]): RatePoint => ({ t, ids })),
      }));
  }

  private touch(bizTag: string): TagHistory {
    let h = this.tags.get(bizTag);
    if (h !== undefined) this.tags.delete(bizTag);
    h ??= { last: new Map(), buckets: new Map() };
    this.tags.set(bizTag, h); // most recently asked about last
    while (this.tags.size > this.maxTags) this.tags.delete(this.tags.keys().next().value as string);
    return h;
  }

  /** `ids` issued over [from, to), shared among the buckets in proportion to their overlap. */
  private spread(h: TagHistory, nodeId: string, from: number, to: number, ids: number): void {
    if (ids <= 0) {
      if (!h.buckets.has(nodeId)) h.buckets.set(nodeId, new Map());
      return;
    }
    let buckets = h.buckets.get(nodeId);
    if (buckets === undefined) h.buckets.set(nodeId, (buckets = new Map()));
    const span = to - from;
    for (let b = Math.floor(from / this.bucketMs) * this.bucketMs; b < to; b += this.bucketMs) {
      const overlap = Math.min(to, b + this.bucketMs) - Math.max(from, b);
      if (overlap > 0) buckets.set(b, (buckets.get(b) ?? 0) + (ids * overlap) / span);
    }
  }

  private prune(h: TagHistory): void {
    const oldest = this.clock.now() - this.keepMs;
    for (const buckets of h.buckets.values()) {
      for (const b of buckets.keys()) if (b + this.bucketMs <= oldest) buckets.delete(b);
    }
  }
}
