'use client';

import Link from 'next/link';
import { useState } from 'react';
import { Notice } from '../ui/Notice';
import { isApiError } from './api';
import { AuditList } from './AuditList';
import { BufferGauges } from './BufferGauges';
import { RateChart, StepChart } from './Charts';
import { DecodeIdForm } from './DecodeId';
import { IssuedBetweenForm } from './IssuedBetween';
import { DeleteTagForm, EditTagForm, RaiseMaxIdForm } from './EditTagForms';
import { TagOrderingForm } from './Ordering';
import { TagSemanticsForm } from './Semantics';
import { chartWindow, currentStep, showAgo, showDecimal, showInt, showRate } from './display';
import { LiveStamp } from './LiveStamp';
import { LoadLog } from './LoadLog';
import { useFleetHistory, useTag } from './queries';
import { type RateSource, RateSourcePicker, chartDataOf } from './RateSource';
import { TagFleet } from './TagFleet';
import { TryIt } from './TryIt';

export function TagDetail({ bizTag }: { bizTag: string }) {
  const query = useTag(bizTag);
  const [source, setSource] = useState<RateSource>('here');
  const fleetHistory = useFleetHistory(bizTag, source !== 'here' && query.data?.fleet != null);

  if (query.isPending) return <p className="muted">Loading {bizTag}…</p>;
  if (query.data === undefined) {
    const notFound = isApiError(query.error) && query.error.status === 404;
    return (
      <>
        <BackLink />
        <Notice
          kind="error"
          title={notFound ? `There is no tag named “${bizTag}”.` : `The tag ${bizTag} cannot be loaded.`}
          testId="tag-error"
        >
          {notFound ? 'It may have been deleted.' : query.error?.message}
        </Notice>
      </>
    );
  }

  const { tag, history } = query.data;
  const e = tag.engine;
  const now = query.dataUpdatedAt;
  const step = currentStep(tag);
  const fleet = query.data.fleet ?? null;
  const chart = chartDataOf(source, history, fleetHistory.data);
  const span = chartWindow(chart?.rate ?? history.rate, chart?.steps.flatMap((l) => l.points) ?? history.steps, now);
  return (
    <article aria-labelledby="tag-title" className="tag-page">
      <BackLink />
      <div className="section-head">
        <h1 id="tag-title" className="mono">
          {tag.bizTag}
        </h1>
        <LiveStamp updatedAt={query.dataUpdatedAt} failing={query.isError} />
      </div>
      {tag.description && <p className="lead">{tag.description}</p>}
      {query.isError && (
        <Notice kind="warn" title="The server stopped answering; these figures are from the last good answer.">
          {query.error.message}
        </Notice>
      )}
      {e?.lastError && (
        <Notice kind="error" title="The last segment load failed.">
          {e.lastError}
        </Notice>
      )}

      <dl className="stats">
        <Stat label="Rate" value={e === null ? '—' : `${showRate(e.ratePerSec)} IDs/s`} testId="stat-rate" />
        <Stat
          label="Step"
          value={showInt(step)}
          note={step !== tag.step ? `db ${showInt(tag.step)}` : undefined}
          testId="stat-step"
        />
        <Stat label="max_id" value={showDecimal(tag.maxId)} testId="stat-max-id" />
        <Stat
          label="Encoding"
          value={tag.encoding === 'plain' ? 'plain' : tag.encoding === 'opaque' ? 'opaque' : 'opaque, JS-safe'}
          note={tag.keyId === null ? undefined : `key ${tag.keyId}`}
          testId="stat-encoding"
        />
        <Stat label="Issued here" value={e === null ? '—' : showInt(e.issuedTotal)} />
        <Stat label="Last load" value={showAgo(e?.lastLoadAt ?? null, now)} />
      </dl>

      <section aria-labelledby="buffer-title" className="card">
        <h2 id="buffer-title">Double buffer</h2>
        <BufferGauges engine={e} />
      </section>

      {fleet !== null && tag.fleet != null && <TagFleet totals={tag.fleet} detail={fleet} />}

      <div className="chart-grid">
        <div className="card">
          {fleet !== null && (
            <RateSourcePicker value={source} nodeIds={fleet.nodes.map((n) => n.nodeId)} onChange={setSource} />
          )}
          {chart === null ? (
            <p className="muted" data-testid="chart-loading">
              {fleetHistory.isError
                ? `The nodes' records cannot be read: ${fleetHistory.error.message}`
                : 'Reading every node’s record…'}
            </p>
          ) : (
            <RateChart data={chart} span={span} />
          )}
        </div>
        <div className="card">{chart !== null && <StepChart data={chart} span={span} />}</div>
      </div>

      <div className="two-col">
        <TryIt bizTag={tag.bizTag} />
        <DecodeIdForm bizTag={tag.bizTag} />
        <IssuedBetweenForm bizTag={tag.bizTag} />
        <EditTagForm key={`edit-${tag.bizTag}`} tag={tag} />
        <RaiseMaxIdForm tag={tag} />
        <TagSemanticsForm tag={tag} />
        <TagOrderingForm tag={tag} />
        <DeleteTagForm bizTag={tag.bizTag} />
      </div>

      <LoadLog loads={history.loads} />
      <AuditList bizTag={tag.bizTag} />
    </article>
  );
}

function Stat({ label, value, note, testId }: { label: string; value: string; note?: string; testId?: string }) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd data-testid={testId}>
        {value}
        {note && <span className="muted small"> ({note})</span>}
      </dd>
    </div>
  );
}

function BackLink() {
  return (
    <p className="back">
      <Link href="/">← All tags</Link>
    </p>
  );
}
