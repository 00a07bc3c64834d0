import { LeafError } from '../errors';
import { bufferedIds } from '../fleet/buffered';
import { runwaySeconds } from '../fleet/runway';
import type { NodeParts } from './nodeParts';
import type { TagSnapshot } from '../segment/snapshot';
import type { TagRow } from '../segment/tagStore';
import { TAG_LIST_SORT_KEYS, type TagListPage, type TagListSortKey, type TagView } from './views';

/**
 * One page of the tag list. By name (the default) the database pages it; by a figure only this node knows (rate,
 * buffer, runway) every tag is read and sorted here — a search or a sort the operator asked for.
 */

export const TAG_LIST_DEFAULT_LIMIT = 50;
export const TAG_LIST_MAX_LIMIT = 500;
const QUERY_MAX_LENGTH = 128;

export interface TagListQuery {
  /** Lower-cased substring of biz_tag or description; '' matches every row. */
  q: string;
  sort: TagListSortKey;
  descending: boolean;
  offset: number;
  limit: number;
}

type ListRuntime = Pick<NodeParts, 'store' | 'segments'> & { console: Pick<NodeParts['console'], 'rates'> };

/** The query string of GET /api/admin/tags, checked: a bad value is a 400 naming the parameter. */
export function parseTagListQuery(params: URLSearchParams): TagListQuery {
  const fields: Record<string, string> = {};
  const q = params.get('q') ?? '';
  if (q.length > QUERY_MAX_LENGTH) fields.q = `At most ${QUERY_MAX_LENGTH} characters.`;
  const rawSort = params.get('sort') ?? 'name';
  const descending = rawSort.startsWith('-');
  const sort = descending ? rawSort.slice(1) : rawSort;
  if (!(TAG_LIST_SORT_KEYS as readonly string[]).includes(sort))
    fields.sort = `One of ${TAG_LIST_SORT_KEYS.join(', ')}, with - in front for descending.`;
  const offset = whole(params.get('offset'), 0, Number.MAX_SAFE_INTEGER, 0, 'offset', fields);
  const limit = whole(params.get('limit'), 1, TAG_LIST_MAX_LIMIT, TAG_LIST_DEFAULT_LIMIT, 'limit', fields);
  if (Object.keys(fields).length > 0) {
    throw new LeafError('invalid_request', `Bad tag list query: ${Object.keys(fields).join(', ')}.`, { fields });
  }
  return { q: q.trim().toLowerCase(), sort: sort as TagListSortKey, descending, offset, limit };
}

function whole(
  raw: string | null,
  min: number,
  max: number,
  fallback: number,
  name: string,
  fields: Record<string, string>,
): number {
  if (raw === null || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d{1,16}$/.test(raw) || n < min || n > max) {
    fields[name] =
      max === Number.MAX_SAFE_INTEGER ? `A whole number of at least ${min}.` : `A whole number from ${min} to ${max}.`;
    return fallback;
  }
  return n;
}

interface Entry {
  row: TagRow;
  snap: TagSnapshot | undefined;
  rate: number;
}

/** Sort value per key; null sorts last in either direction (no buffer, idle). */
const SORT_VALUE: Record<TagListSortKey, (e: Entry) => number | bigint | string | null> = {
  name: (e) => e.row.bizTag,
  rate: (e) => e.rate,
  remaining: (e) => (e.snap === undefined || e.snap.current === null ? null : bufferedIds(e.snap)),
  runway: (e) => (e.snap === undefined ? null : runwaySeconds(bufferedIds(e.snap), e.rate)),
  maxId: (e) => e.row.maxId,
  updated: (e) => e.row.updateTime.getTime(),
};

export async function listTagPage(
  rt: ListRuntime,
  query: TagListQuery,
  view: (row: TagRow) => TagView,
): Promise<TagListPage> {
  if (query.sort === 'name') return namePage(rt, query, view);
  return walkedPage(rt, query, view);
}

/** By name (the default): the database pages and counts, so a page costs a page whatever the number of tags. */
async function namePage(rt: ListRuntime, query: TagListQuery, view: (row: TagRow) => TagView): Promise<TagListPage> {
  const { rows, matching, total } = await rt.store.tags.tagRowsPage(query);
  return {
    tags: rows.map(view),
    total: matching,
    offset: query.offset,
    limit: query.limit,
    totals: {
      tags: total,
      loaded: rt.segments.status().tagsLoaded,
      ratePerSec: Math.round(rt.console.rates.totalRatePerSec() * 10) / 10,
    },
  };
}

/** By rate, buffer, runway, max_id or update time: this node's figures of every tag, sorted here. */
async function walkedPage(rt: ListRuntime, query: TagListQuery, view: (row: TagRow) => TagView): Promise<TagListPage> {
  const rows = await rt.store.tags.listTagRows();
  let ratePerSec = 0;
  const matched: Entry[] = [];
  for (const row of rows) {
    const rate = rt.console.rates.ratePerSec(row.bizTag);
    ratePerSec += rate;
    if (
      query.q !== '' &&
      !row.bizTag.toLowerCase().includes(query.q) &&
      !(row.description ?? '').toLowerCase().includes(query.q)
    )
      continue;
    matched.push({
      row,
      rate,
      snap: query.sort === 'remaining' || query.sort === 'runway' ? rt.segments.snapshot(row.bizTag) : undefined,
    });
  }
  const value = SORT_VALUE[query.sort];
  const keyed = matched.map((e) => ({ e, v: value(e) }));
  const sign = query.descending ? -1 : 1;
  keyed.sort((a, b) => {
    if (a.v === null || b.v === null) return a.v === b.v ? byName(a.e, b.e) : a.v === null ? 1 : -1;
    const c = a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
    return c !== 0 ? c * sign : byName(a.e, b.e);
  });
  const page = keyed.slice(query.offset, query.offset + query.limit).map(({ e }) => view(e.row));
  return {
    tags: page,
    total: matched.length,
    offset: query.offset,
    limit: query.limit,
    totals: {
      tags: rows.length,
      loaded: rt.segments.status().tagsLoaded,
      ratePerSec: Math.round(ratePerSec * 10) / 10,
    },
  };
}

function byName(a: Entry, b: Entry): number {
  return a.row.bizTag < b.row.bizTag ? -1 : a.row.bizTag > b.row.bizTag ? 1 : 0;
}
