/** GET /api/admin/tags/{tag}/issued?from=T1&to=T2: every ID of the tag that can have been handed out in [T1, T2]. */
import { claimsBetween } from '../claims/claimLog';
import type { ClaimLogStore } from '../claims/claimLogStore';
import { type IssuedRange, idCount, issuedRanges } from '../claims/issued';
import { LeafError, tagNotFound } from '../errors';
import { parseMoment } from '../http/snowflakeTime';
import type { EncodingName } from '../opaque/encoding';
import type { TagStore } from '../segment/tagStore';

export interface IssuedAnswer {
  tag: string;
  /** An opaque tag's ranges are of sequence numbers: its IDs are their permutations (decode one to find its number). */
  encoding: EncodingName;
  from: string;
  to: string;
  /** A superset of the IDs handed out in the window, exact to whole claims (docs/design.md#ids-that-tell-when). */
  ranges: IssuedRange[];
  /** How many IDs the ranges hold, as a decimal string. */
  ids: string;
  claims: number;
  /** The oldest claim the log keeps of the tag: before it, the log cannot answer. */
  logSince: string | null;
  retentionDays: number;
}

/** The window from the query: `from` and `to`, each once, as ISO 8601 with its zone or ms since 1970. */
export function issuedWindow(search: string): { fromMs: number; toMs: number } {
  const params = new URLSearchParams(search);
  for (const key of params.keys()) {
    if (key !== 'from' && key !== 'to')
      throw new LeafError('invalid_request', `Unknown parameter "${key}": give from and to.`);
  }
  const one = (name: 'from' | 'to'): number => {
    const values = params.getAll(name);
    if (values.length !== 1)
      throw new LeafError('invalid_request', `Give ${name} once: an ISO 8601 time with its zone or ms since 1970.`);
    return parseMoment(values[0] as string, name);
  };
  const fromMs = one('from');
  const toMs = one('to');
  if (toMs < fromMs)
    throw new LeafError('invalid_request', 'to is before from: give a window whose end is not before its start.');
  return { fromMs, toMs };
}

export async function issuedBetween(
  store: { tags: Pick<TagStore, 'getTag' | 'getEncoding'>; claims: Pick<ClaimLogStore, 'rowsUpTo' | 'oldest'> },
  bizTag: string,
  window: { fromMs: number; toMs: number },
  retentionDays: number,
): Promise<IssuedAnswer> {
  if ((await store.tags.getTag(bizTag)) === undefined) throw tagNotFound(bizTag);
  const [claims, oldest, encoding] = await Promise.all([
    claimsBetween(store.claims, bizTag, window.fromMs, window.toMs),
    store.claims.oldest(bizTag),
    store.tags.getEncoding(bizTag),
  ]);
  const ranges = issuedRanges(claims);
  return {
    tag: bizTag,
    encoding: encoding === null ? 'plain' : encoding.encoding,
    from: new Date(window.fromMs).toISOString(),
    to: new Date(window.toMs).toISOString(),
    ranges,
    ids: idCount(ranges).toString(),
    claims: claims.length,
    logSince: oldest === null ? null : new Date(oldest).toISOString(),
    retentionDays,
  };
}
