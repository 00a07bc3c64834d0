'use client';

import { useState } from 'react';
import { Notice } from '../ui/Notice';
import { DatabaseCard } from './DatabaseCard';
import { NewTagForm } from './NewTagForm';
import { FleetTotals } from './FleetTotals';
import { useFleet, useTags } from './queries';
import { TagTable } from './TagTable';
import { LiveStamp } from './LiveStamp';

export function Dashboard() {
  const tags = useTags();
  const runwayWarnSeconds = useFleet().data?.runwayWarnSeconds;
  const [creating, setCreating] = useState(false);

  return (
    <>
      <section aria-labelledby="tags-title">
        <div className="section-head">
          <h1 id="tags-title">Tags</h1>
          <LiveStamp updatedAt={tags.dataUpdatedAt} failing={tags.isError} />
          <button type="button" className="button-primary" aria-expanded={creating} aria-controls="new-tag" onClick={() => setCreating((v) => !v)}>
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
            title={tags.data === undefined ? 'The tags cannot be loaded.' : 'The server stopped answering; the figures below are from the last good answer.'}
          >
            {tags.error.message} <span className="muted">({'code' in tags.error ? String(tags.error.code) : 'error'})</span>
          </Notice>
        )}

        {tags.isPending && <p className="muted">Loading tags…</p>}

        {tags.data !== undefined &&
          (tags.data.length === 0 ? (
            <div className="empty card" data-testid="tags-empty">
              <h2>No tags yet</h2>
              <p className="muted">A tag is one ID sequence, such as <code>order</code> or <code>user</code>. Create the first one to start handing out IDs.</p>
              {!creating && (
                <button type="button" className="button-primary" onClick={() => setCreating(true)}>
                  Create a tag
                </button>
              )}
            </div>
          ) : (
            <TagTable tags={tags.data} runwayWarnSeconds={runwayWarnSeconds} />
          ))}
      </section>

      <DatabaseCard />
    </>
  );
}
