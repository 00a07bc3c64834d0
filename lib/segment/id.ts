/** IDs up to 2^63−1: a number while safe, a bigint only above, so an ordinary tag never meets a bigint. */
export type Id = number | bigint;

/** The largest ID: Leaf's max_id is a signed BIGINT. */
export const MAX_ID = 2n ** 63n - 1n;
/** How the guard names it in messages. */
export const MAX_ID_TEXT = '2^63−1 (9223372036854775807)';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A bigint in its one form: a number when safe. */
export function toId(value: bigint): Id {
  return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value;
}

export function idBigint(id: Id): bigint {
  return typeof id === 'bigint' ? id : BigInt(id);
}

const DECIMAL = /^-?[0-9]{1,19}$/;

/** A BIGINT column as the driver gives it (decimal text, or a number when small) to an Id; undefined when not one. */
export function parseId(value: unknown): Id | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'bigint') return value >= -MAX_ID - 1n && value <= MAX_ID ? toId(value) : undefined;
  if (typeof value !== 'string' || !DECIMAL.test(value)) return undefined;
  const big = BigInt(value);
  return big >= -MAX_ID - 1n && big <= MAX_ID ? toId(big) : undefined;
}

/** Past 2^53 a segment counts offsets from a base, a multiple of this: every offset stays a number. */
export const WIDE_BASE_UNIT = 2n ** 52n;

/** The ID at `offset` above `base` (a wide segment's base; null for an ordinary one, whose offsets are the IDs). */
export function idAt(base: bigint | null, offset: number): Id {
  return base === null ? offset : toId(base + BigInt(offset));
}
