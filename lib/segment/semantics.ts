/** Which IDs a claim owns: `leaf` (Java Leaf) or `leaf-ts` (docs/design.md#claim-semantics-running-beside-java-leaf). */
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

/** The IDs a claim owns, inclusive: bigints from the engine (once per claim), numbers for small values. */
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

/** How much max_id grows when a tag's semantics changes: leaf-ts → leaf one ID, leaf → leaf-ts none. */
export function switchBump(from: Semantics, to: Semantics): 0 | 1 {
  return from === 'leaf-ts' && to === 'leaf' ? 1 : 0;
}
