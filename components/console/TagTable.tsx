'use client';

import Link from 'next/link';
import { Meter } from '../ui/Meter';
import type { TagView } from './api';
import { FleetCells, FleetHeaders } from './FleetCells';
import { SEGMENT_STATE_LABEL, currentStep, formatDecimal, formatInt, formatRate, nextSegmentState, remainingPercent } from './format';

/** One row per tag; at phone width each row becomes a card (labels from data-label). */
export function TagTable({ tags, runwayWarnSeconds }: { tags: TagView[]; runwayWarnSeconds?: number }) {
  return (
    <div className="table-wrap">
      <table className="tag-table" aria-label="Tags">
        <thead>
          <tr>
            <th scope="col">Tag</th>
            <th scope="col" className="num">Rate (IDs/s)</th>
            <th scope="col" className="num">Step</th>
            <th scope="col">Buffer left</th>
            <th scope="col">Next segment</th>
            <FleetHeaders />
            <th scope="col" className="num">max_id</th>
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
        {e === null ? '—' : formatRate(e.ratePerSec)}
      </td>
      <td className="num" data-label="Step">
        <span>
          {formatInt(currentStep(tag))}
          {currentStep(tag) !== tag.step && <span className="muted small"> (db {formatInt(tag.step)})</span>}
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
        {formatDecimal(tag.maxId)}
      </td>
      <td data-label="Description" className="description">
        {tag.description ?? <span className="muted">—</span>}
      </td>
    </tr>
  );
}
