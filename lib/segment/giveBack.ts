/**
 * What a node may give back on a graceful stop: the unused top of its latest claim of a tag (issue 11).
 *
 * The rule: only IDs this node claimed and never handed out, only when they reach up to the top of the tag's
 * latest claim by this node, and only while the row still holds what that claim left (the store's compare-and-set).
 * Then every ID above the new max_id's next claim start is one nobody was ever given.
 */
import type { Id } from './id';
import { type Semantics, claimedRange } from './semantics';

/** An inclusive run of IDs this node claimed and never handed out. */
export interface UnusedRun {
  first: bigint;
  last: bigint;
}

/** This node's latest claim of a tag: what the row held right after it, and how its IDs were meant. */
export interface LatestClaim {
  /** max_id right after the claim (the compare-and-set's expected value). */
  maxId: Id;
  step: number;
  semantics: Semantics;
  /** A lease is handed out whole; only a segment's IDs can be unused. */
  purpose: 'segment' | 'lease';
}

/**
 * The lowest ID `x` such that every ID from `x` to the top of `latest` is in `unused` — the unused runs are this
 * node's, so their union is unused and nobody else's — or null when the claim's own top ID went out.
 */
export function unusedTop(latest: LatestClaim, unused: readonly UnusedRun[]): bigint | null {
  if (latest.purpose !== 'segment') return null;
  const top = claimedRange(BigInt(latest.maxId), latest.step, latest.semantics).last;
  let first = top + 1n;
  for (;;) {
    const below = unused.find((run) => run.first <= run.last && run.last === first - 1n);
    if (below === undefined) break;
    first = below.first;
  }
  return first > top ? null : first;
}

/**
 * The max_id after giving back `[first, top]`: the next claim by any node, in the claim's semantics, starts exactly
 * at `first` — `leaf-ts` claims start at max_id + 1, `leaf` ones (Java Leaf) at max_id.
 */
export function givenBackMaxId(first: bigint, semantics: Semantics): bigint {
  return semantics === 'leaf' ? first : first - 1n;
}
