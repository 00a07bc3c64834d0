/** A biz_tag: 1–128 chars of letters, digits, `_ - . :` — safe in URLs, SQL identifiers of value, and JSON. */
export const BIZ_TAG_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
export const BIZ_TAG_MAX_LENGTH = 128;

export function isValidBizTag(value: string): boolean {
  return BIZ_TAG_PATTERN.test(value);
}

/** Largest batch one request may take. */
export const MAX_COUNT = 10_000;
