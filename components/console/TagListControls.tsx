'use client';

import { usePrefetchQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { TagListParams, TagListSortKey } from './api';
import { formatInt } from './format';
import { tagListQuery } from './queries';

export const PAGE_SIZE = 50;
/** What the dashboard shows first. */
export const FIRST_PAGE: TagListParams = { q: '', sort: 'name', offset: 0, limit: PAGE_SIZE };

/**
 * Asks for the first page while the session check is still out, instead of after it: one round trip less before
 * the table shows. Signed out, its 401 sends the operator to the login page like any other.
 */
export function PrefetchFirstPage() {
  usePrefetchQuery(tagListQuery(FIRST_PAGE));
  return null;
}
const SEARCH_DEBOUNCE_MS = 250;

/**
 * The tag list's query as the dashboard holds it: search (sent once typing pauses), sort and page. A new search
 * or sort goes back to the first page.
 */
export function useTagListParams() {
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const [sort, setSortParam] = useState<TagListParams['sort']>(FIRST_PAGE.sort);
  const [offset, setOffset] = useState(FIRST_PAGE.offset);
  useEffect(() => {
    const timer = setTimeout(() => {
      setQ(search.trim());
      setOffset(0);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [search]);
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
      <input id="tag-search" type="search" placeholder="Search tags and descriptions" value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/** "51–100 of 10,000" with previous / next. */
export function Pager({ offset, limit, total, onOffset }: { offset: number; limit: number; total: number; onOffset: (o: number) => void }) {
  if (total <= limit && offset === 0) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="pager" aria-label="Tag pages">
      <span className="muted" data-testid="tags-range">
        {total === 0 ? '0' : `${formatInt(offset + 1)}–${formatInt(last)}`} of {formatInt(total)}
      </span>
      <button type="button" className="button-quiet" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <button type="button" className="button-quiet" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
