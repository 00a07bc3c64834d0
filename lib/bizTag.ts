import { LeafError } from './errors';

/** The longest biz_tag: Leaf's `biz_tag varchar(128)`. */
export const BIZ_TAG_MAX_LENGTH = 128;
/** A biz_tag: 1–128 chars of letters, digits, `_ - . :` — safe in URLs, SQL identifiers of value, and JSON. */
export const BIZ_TAG_PATTERN = new RegExp(`^[A-Za-z0-9_.:-]{1,${BIZ_TAG_MAX_LENGTH}}$`);

export function isValidBizTag(value: string): boolean {
  return BIZ_TAG_PATTERN.test(value);
}

/** Largest batch one request may take. */
export const MAX_COUNT = 10_000;

/** Most IDs one range lease may take: its answer is a run per segment touched, so its size does not grow with this. */
export const MAX_LEASE_COUNT = 10_000_000;

/** A limit as people read it in messages: 10,000 — never typed out by hand, so it cannot drift from the value. */
export function readableLimit(n: number): string {
  return n.toLocaleString('en-US');
}

export function invalidTag(): LeafError {
  return new LeafError(
    'invalid_tag',
    `A tag is 1–${BIZ_TAG_MAX_LENGTH} characters of letters, digits, "_", "-", "." or ":".`,
  );
}

/** The tag itself, or a 400 `invalid_tag`. Takes an already decoded value. */
export function parseBizTag(value: string): string {
  if (!isValidBizTag(value)) throw invalidTag();
  return value;
}
