/** What a graceful stop may give back: the unused top of this node's latest claim, by compare-and-set (docs/operations.md#give-back-restarts-that-skip-no-ids). */
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

/** The lowest `x` with every ID from `x` to `latest`'s top unused, or null when its top ID went out. */
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

/** The max_id after giving back `[first, top]`: the next claim in the claim's semantics starts at `first`. */
export function givenBackMaxId(first: bigint, semantics: Semantics): bigint {
  return semantics === 'leaf' ? first : first - 1n;
}
