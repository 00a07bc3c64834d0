import { LeafError } from './errors';

/** A biz_tag: 1–128 chars of letters, digits, `_ - . :` — safe in URLs, SQL identifiers of value, and JSON. */
export const BIZ_TAG_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
export const BIZ_TAG_MAX_LENGTH = 128;

export function isValidBizTag(value: string): boolean {
  return BIZ_TAG_PATTERN.test(value);
}

/** Largest batch one request may take. */
export const MAX_COUNT = 10_000;

export function invalidTag(): LeafError {
  return new LeafError('invalid_tag', 'A tag is 1–128 characters of letters, digits, "_", "-", "." or ":".');
}

/** The tag itself, or a 400 `invalid_tag`. Takes an already decoded value. */
export function parseBizTag(value: string): string {
  if (!isValidBizTag(value)) throw invalidTag();
  return value;
}
