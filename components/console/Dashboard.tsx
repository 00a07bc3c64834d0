'use client';

import { useState } from 'react';
import { Notice } from '../ui/Notice';
import { DatabaseCard } from './DatabaseCard';
import { NewTagForm } from './NewTagForm';
import { FleetTotals } from './FleetTotals';
import { FleetSemanticsCard } from './Semantics';
import { useFleet, useTags } from './queries';
import { TagTable } from './TagTable';
import { Pager, TagSearch, useTagListParams } from './TagListControls';
import { LiveStamp } from './LiveStamp';
import { showInt, showRate } from './display';

export function Dashboard() {
  const list = useTagListParams();
  const tags = useTags(list.params);
  const page = tags.data;
  const runwayWarnSeconds = useFleet().data?.runwayWarnSeconds;
  const [creating, setCreating] = useState(false);

  return (
    <>
      <section aria-labelledby="tags-title">
        <div className="section-head">
          <h1 id="tags-title">Tags</h1>
          <LiveStamp updatedAt={tags.dataUpdatedAt} failing={tags.isError} />
          <button
            type="button"
            className="button-primary"
            aria-expanded={creating}
            aria-controls="new-tag"
            onClick={() => setCreating((v) => !v)}
          >
            {creating ? 'Close' : 'New tag'}
          </button>
        </div>

        <FleetTotals />

        {creating && (
          <div id="new-tag">
            <NewTagForm />
          </div>
        )}

        {tags.isError && (
          <Notice
            kind="error"
            testId="tags-error"
            title={
              tags.data === undefined
                ? 'The tags cannot be loaded.'
                : 'The server stopped answering; the figures below are from the last good answer.'
            }
          >
            {tags.error.message}{' '}
            <span className="muted">({'code' in tags.error ? String(tags.error.code) : 'error'})</span>
          </Notice>
        )}

        {tags.isPending && <p className="muted">Loading tags…</p>}

        {page !== undefined && page.totals.tags > 0 && (
          <div className="tag-list-bar">
            <TagSearch value={list.search} onChange={list.setSearch} />
            <span className="muted" data-testid="tags-totals">
              {showInt(page.totals.tags)} tags · {showRate(page.totals.ratePerSec)} IDs/s on this node
            </span>
          </div>
        )}

        {page !== undefined &&
          (page.totals.tags === 0 ? (
            <div className="empty card" data-testid="tags-empty">
              <h2>No tags yet</h2>
              <p className="muted">
                A tag is one ID sequence, such as <code>order</code> or <code>user</code>. Create the first one to start
                handing out IDs.
              </p>
              {!creating && (
                <button type="button" className="button-primary" onClick={() => setCreating(true)}>
                  Create a tag
                </button>
              )}
            </div>
          ) : page.total === 0 ? (
            <p className="muted" data-testid="tags-no-match">
              No tag or description contains “{list.params.q}”.
            </p>
          ) : (
            <>
              <TagTable
                tags={page.tags}
                sort={list.params.sort}
                onSort={list.sortBy}
                runwayWarnSeconds={runwayWarnSeconds}
              />
              <Pager offset={page.offset} limit={page.limit} total={page.total} onOffset={list.setOffset} />
            </>
          ))}
      </section>

      <DatabaseCard />
      <FleetSemanticsCard />
    </>
  );
}
