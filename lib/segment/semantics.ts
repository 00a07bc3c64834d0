/**
 * Claim semantics: which IDs a claim that moved max_id to `maxId` by `step` owns.
 *
 * - `leaf`: Leaf's Java server — `[maxId − step, maxId − 1]` (its `value = maxId − step`, IDs while `value < max`).
 * - `leaf-ts`: this project's own — `[maxId − step + 1, maxId]`: max_id is the highest ID claimed.
 *
 * A fleet mixing Java Leaf nodes and leaf-ts nodes on one row must agree, so the setting lives in the database
 * (leaf_semantics) and each claim reads it in its own transaction: one claim, one semantics.
 */
export const SEMANTICS = ['leaf', 'leaf-ts'] as const;
export type Semantics = (typeof SEMANTICS)[number];

/** No row in leaf_semantics at all: the behaviour leaf-ts always had. */
export const DEFAULT_SEMANTICS: Semantics = 'leaf-ts';

/** The leaf_semantics row that holds the fleet default (a tag is 1–128 of `A-Z a-z 0-9 _ - . :`, never `*`). */
export const FLEET_DEFAULT_KEY = '*';

export function isSemantics(value: unknown): value is Semantics {
  return value === 'leaf' || value === 'leaf-ts';
}

/** A stored value: anything unknown (written by hand) reads as the default rather than failing every claim. */
export function storedSemantics(value: unknown): Semantics | undefined {
  return isSemantics(value) ? value : undefined;
}

/**
 * The IDs a claim owns, first and last inclusive. The engine passes bigints (max_id may be anywhere up to 2^63−1;
 * once per claim); numbers suit callers that know their values are small (tests, tools).
 */
export function claimedRange(maxId: number, step: number, semantics: Semantics): { first: number; last: number };
export function claimedRange(maxId: bigint, step: number, semantics: Semantics): { first: bigint; last: bigint };
export function claimedRange(
  maxId: number | bigint,
  step: number,
  semantics: Semantics,
): { first: number | bigint; last: number | bigint } {
  if (typeof maxId === 'number')
    return semantics === 'leaf' ? { first: maxId - step, last: maxId - 1 } : { first: maxId - step + 1, last: maxId };
  const size = BigInt(step);
  return semantics === 'leaf' ? { first: maxId - size, last: maxId - 1n } : { first: maxId - size + 1n, last: maxId };
}

/**
 * How much max_id must grow when a tag's semantics changes, so the first claim of the new semantics starts above
 * every ID of the old: leaf-ts may have served max_id itself and leaf would start at it — one ID up. Leaf served
 * up to max_id − 1 and leaf-ts starts at max_id + 1: nothing (one ID, max_id, is skipped by nature).
 */
export function switchBump(from: Semantics, to: Semantics): 0 | 1 {
  return from === 'leaf-ts' && to === 'leaf' ? 1 : 0;
}
