'use client';

import { usePrefetchQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import type { TagListParams, TagListSortKey } from './api';
import { showInt } from './display';
import { FIRST_PAGE, PAGE_SIZE, listParamsFromUrl, listParamsToUrl } from './listParams';
import { tagListQuery } from './queries';

/**
 * Asks for the first page (the one the address bar names) while the session check is still out, instead of after it: one round trip less before
 * the table shows. Signed out, its 401 sends the operator to the login page like any other.
 */
export function PrefetchFirstPage() {
  usePrefetchQuery(tagListQuery({ ...urlListParams(), limit: PAGE_SIZE }));
  return null;
}
const SEARCH_DEBOUNCE_MS = 250;

/** The list's state from the address bar; the first page where there is none (or on the server). */
function urlListParams(): Pick<TagListParams, 'q' | 'sort' | 'offset'> {
  return typeof window === 'undefined' ? FIRST_PAGE : listParamsFromUrl(window.location.search);
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
