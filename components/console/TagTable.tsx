'use client';

import Link from 'next/link';
import { Meter } from '../ui/Meter';
import type { TagListParams, TagListSortKey, TagView } from './api';
import { FleetCells, FleetHeaders } from './FleetCells';
import {
  SEGMENT_STATE_LABEL,
  currentStep,
  showDecimal,
  showInt,
  showRate,
  nextSegmentState,
  remainingPercent,
} from './display';

interface Sorting {
  sort: TagListParams['sort'];
  onSort: (key: TagListSortKey) => void;
}

/** One row per tag (one page of them: the server sorts and slices); at phone width each row becomes a card (labels from data-label). */
export function TagTable({
  tags,
  sort,
  onSort,
  runwayWarnSeconds,
}: { tags: TagView[]; runwayWarnSeconds?: number } & Sorting) {
  const sorting = { sort, onSort };
  return (
    <div className="table-wrap">
      <table className="tag-table" aria-label="Tags">
        <thead>
          <tr>
            <SortableHeader label="Tag" sortKey="name" {...sorting} />
            <SortableHeader label="Rate (IDs/s)" sortKey="rate" className="num" {...sorting} />
            <th scope="col" className="num">
              Step
            </th>
            <SortableHeader label="Buffer left" sortKey="remaining" {...sorting} />
            <th scope="col">Next segment</th>
            <FleetHeaders />
            <SortableHeader label="max_id" sortKey="maxId" className="num" {...sorting} />
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {tags.map((tag) => (
            <TagRow key={tag.bizTag} tag={tag} runwayWarnSeconds={runwayWarnSeconds} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A column header that sorts the list on the server; aria-sort says how it is sorted now. */
function SortableHeader({
  label,
  sortKey,
  className,
  sort,
  onSort,
}: { label: string; sortKey: TagListSortKey; className?: string } & Sorting) {
  const active = sort.replace(/^-/, '') === sortKey;
  const descending = sort.startsWith('-');
  return (
    <th scope="col" className={className} aria-sort={active ? (descending ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className="sort-button" onClick={() => onSort(sortKey)}>
        {label}
        <span aria-hidden="true" className="sort-mark">
          {active ? (descending ? ' ▼' : ' ▲') : ''}
        </span>
      </button>
    </th>
  );
}

function TagRow({ tag, runwayWarnSeconds }: { tag: TagView; runwayWarnSeconds: number | undefined }) {
  const e = tag.engine;
  const state = nextSegmentState(e);
  const pct = remainingPercent(e);
  return (
    <tr data-testid={`tag-row-${tag.bizTag}`}>
      <th scope="row" data-label="Tag">
        <Link href={`/tags/${encodeURIComponent(tag.bizTag)}`} className="tag-link">
          {tag.bizTag}
        </Link>
        {e?.lastError && (
          <span className="badge badge-error" title={e.lastError}>
            load failing
          </span>
        )}
      </th>
      <td className="num" data-label="Rate (IDs/s)">
        {e === null ? '—' : showRate(e.ratePerSec)}
      </td>
      <td className="num" data-label="Step">
        <span>
          {showInt(currentStep(tag))}
          {currentStep(tag) !== tag.step && <span className="muted small"> (db {showInt(tag.step)})</span>}
        </span>
      </td>
      <td data-label="Buffer left">
        {pct === null ? (
          <span className="muted">{e?.loading ? 'loading…' : 'no load yet'}</span>
        ) : (
          <span className="buffer-cell">
            <Meter percent={pct} label={`Buffer left for ${tag.bizTag}`} />
            <span className="num">{Math.round(pct)}%</span>
          </span>
        )}
      </td>
      <td data-label="Next segment">
        <span className={`state state-${state}`}>{SEGMENT_STATE_LABEL[state]}</span>
      </td>
      <FleetCells tag={tag} runwayWarnSeconds={runwayWarnSeconds} />
      <td className="num mono" data-label="max_id">
        {showDecimal(tag.maxId)}
      </td>
      <td data-label="Description" className="description">
        {tag.description ?? <span className="muted">—</span>}
      </td>
    </tr>
  );
}
