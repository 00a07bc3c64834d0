/** The dashboard's list state as the address bar and the API spell it: a plain module, read by the page on the server too. */
import { TAG_LIST_SORT_KEYS, type TagListSortKey } from '@/lib/admin/views';

/** One page of the tag list: what the address bar holds, the API is asked and the query is keyed by. */
export interface TagListParams {
  q: string;
  sort: TagListSortKey | `-${TagListSortKey}`;
  offset: number;
  limit: number;
}

export const PAGE_SIZE = 50;
/** What the dashboard shows first. */
export const FIRST_PAGE: TagListParams = { q: '', sort: 'name', offset: 0, limit: PAGE_SIZE };

/** The list's state in the address bar (`?q=…&sort=-rate&page=2`), so a reload, Back or a shared link shows the same page. */
export function listParamsFromUrl(search: string): Pick<TagListParams, 'q' | 'sort' | 'offset'> {
  const url = new URLSearchParams(search);
  const q = (url.get('q') ?? '').trim();
  const sortParam = url.get('sort') ?? '';
  const sort = (TAG_LIST_SORT_KEYS as readonly string[]).includes(sortParam.replace(/^-/, ''))
    ? (sortParam as TagListParams['sort'])
    : FIRST_PAGE.sort;
  const page = Number(url.get('page'));
  const offset = Number.isSafeInteger(page) && page > 1 ? (page - 1) * PAGE_SIZE : 0;
  return { q, sort, offset };
}

/** The query string for `params`: only what differs from the first page, so the plain dashboard keeps a plain URL. */
export function listParamsToUrl({ q, sort, offset }: Pick<TagListParams, 'q' | 'sort' | 'offset'>): string {
  const url = new URLSearchParams();
  if (q !== '') url.set('q', q);
  if (sort !== FIRST_PAGE.sort) url.set('sort', sort);
  if (offset > 0) url.set('page', String(Math.floor(offset / PAGE_SIZE) + 1));
  const text = url.toString();
  return text === '' ? '' : `?${text}`;
}

/** The API's query for one page; the server seeds the dashboard from the same words (app/_server/dashboardSeed.ts). */
export function tagListSearch({ q, sort, offset, limit }: TagListParams): URLSearchParams {
  const params = new URLSearchParams({ sort, offset: String(offset), limit: String(limit) });
  if (q !== '') params.set('q', q);
  return params;
}
