'use client';

import { usePrefetchQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { TAG_LIST_SORT_KEYS } from '@/lib/admin/views';
import type { TagListParams, TagListSortKey } from './api';
import { showInt } from './display';
import { tagListQuery } from './queries';

export const PAGE_SIZE = 50;
/** What the dashboard shows first. */
export const FIRST_PAGE: TagListParams = { q: '', sort: 'name', offset: 0, limit: PAGE_SIZE };

/**
 * Asks for the first page (the one the address bar names) while the session check is still out, instead of after it: one round trip less before
 * the table shows. Signed out, its 401 sends the operator to the login page like any other.
 */
export function PrefetchFirstPage() {
  usePrefetchQuery(tagListQuery({ ...urlListParams(), limit: PAGE_SIZE }));
  return null;
}
const SEARCH_DEBOUNCE_MS = 250;

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

/** The list's state from the address bar; the first page where there is none (or on the server). */
function urlListParams(): Pick<TagListParams, 'q' | 'sort' | 'offset'> {
  return typeof window === 'undefined' ? FIRST_PAGE : listParamsFromUrl(window.location.search);
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

/**
 * The tag list's query as the dashboard holds it: search (sent once typing pauses), sort and page, mirrored in the
 * address bar. A new search or sort goes back to the first page.
 */
export function useTagListParams() {
  // Next's view of the address bar: right on a full load and after a client-side navigation (the login's return).
  const searchParams = useSearchParams();
  const [initial] = useState(() => listParamsFromUrl(searchParams.toString()));
  const [search, setSearch] = useState(initial.q);
  const [q, setQ] = useState(initial.q);
  const [sort, setSortParam] = useState<TagListParams['sort']>(initial.sort);
  const [offset, setOffset] = useState(initial.offset);
  useEffect(() => {
    const query = listParamsToUrl({ q, sort, offset });
    if (query !== window.location.search)
      window.history.replaceState(window.history.state, '', `${window.location.pathname}${query}`);
  }, [q, sort, offset]);
  useEffect(() => {
    if (search.trim() === q) return;
    const timer = setTimeout(() => {
      setQ(search.trim());
      setOffset(0);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [search, q]);
  const params: TagListParams = { q, sort, offset, limit: PAGE_SIZE };
  return {
    params,
    search,
    setSearch,
    setOffset,
    /** Sorts by `key`: a new column starts with names A–Z and figures largest first; the same column flips. */
    sortBy(key: TagListSortKey) {
      const current = sort.replace(/^-/, '');
      setSortParam(current === key ? (sort.startsWith('-') ? key : `-${key}`) : key === 'name' ? key : `-${key}`);
      setOffset(0);
    },
  };
}

export function TagSearch({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  return (
    <div className="field tag-search">
      <label htmlFor="tag-search" className="visually-hidden">
        Search tags
      </label>
      <input
        id="tag-search"
        type="search"
        placeholder="Search tags and descriptions"
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}

/** "51–100 of 10,000" with previous / next. */
export function Pager({
  offset,
  limit,
  total,
  onOffset,
}: {
  offset: number;
  limit: number;
  total: number;
  onOffset: (o: number) => void;
}) {
  if (total <= limit && offset === 0) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="pager" aria-label="Tag pages">
      <span className="muted" data-testid="tags-range">
        {total === 0 ? '0' : `${showInt(offset + 1)}–${showInt(last)}`} of {showInt(total)}
      </span>
      <button
        type="button"
        className="button-quiet"
        disabled={offset === 0}
        onClick={() => onOffset(Math.max(0, offset - limit))}
      >
        Previous
      </button>
      <button type="button" className="button-quiet" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
