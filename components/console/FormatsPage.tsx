'use client';

import Link from 'next/link';
import { Notice } from '../ui/Notice';
import type { FormatDetail as FormatDetailData } from './api';
import { isApiError } from './api';
import { showInt, showUtc } from './display';
import { DeleteFormatButton, EditFormatForm, NewFormatForm } from './FormatForms';
import { LiveStamp } from './LiveStamp';
import { useFormat, useFormats, useTakeFormattedIds } from './queries';
import { TakeIds } from './TryIt';

const periodText = (key: string) => (key === '' ? '(never resets)' : key);

/** The Formats page: create with a live preview, and every formatted tag with its current period's count. */
export function FormatsPage() {
  return (
    <>
      <NewFormatForm />
      <FormatList />
    </>
  );
}

function FormatList() {
  const query = useFormats();
  const formats = query.data ?? [];
  return (
    <section className="card" aria-labelledby="format-list-title">
      <h2 id="format-list-title">Formatted tags</h2>
      {query.error && (
        <Notice kind="error" title="The formats could not be loaded.">
          {query.error.message}
        </Notice>
      )}
      {query.isPending ? (
        <p className="muted">Loading…</p>
      ) : formats.length === 0 ? (
        <p className="muted">No formatted tag yet.</p>
      ) : (
        <div className="table-wrap">
          <table aria-label="Formatted tags" data-testid="format-list">
            <thead>
              <tr>
                <th scope="col">Tag</th>
                <th scope="col">Pattern</th>
                <th scope="col">Reset</th>
                <th scope="col">Zone</th>
                <th scope="col">Current period</th>
                <th scope="col" className="num">
                  IDs claimed
                </th>
              </tr>
            </thead>
            <tbody>
              {formats.map((f) => (
                <tr key={f.bizTag} data-testid={`format-row-${f.bizTag}`}>
                  <td>
                    <Link href={`/formats/${encodeURIComponent(f.bizTag)}`} className="mono">
                      {f.bizTag}
                    </Link>
                  </td>
                  <td className="mono">{f.pattern}</td>
                  <td>{f.resetPeriod}</td>
                  <td>{f.timeZone}</td>
                  <td className="mono">{periodText(f.currentPeriod)}</td>
                  <td className="num" data-testid="format-count">
                    {showInt(f.currentCount)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** One formatted tag: its settings, each period's count, the edit form with its preview, and a "take IDs" box. */
export function FormatDetail({ bizTag }: { bizTag: string }) {
  const query = useFormat(bizTag);
  const take = useTakeFormattedIds(bizTag);
  if (query.isPending) return <p className="muted">Loading {bizTag}…</p>;
  if (query.data === undefined) {
    const notFound = isApiError(query.error) && query.error.status === 404;
    return (
      <Notice
        kind="error"
        title={notFound ? `There is no formatted tag named “${bizTag}”.` : `The format ${bizTag} cannot be loaded.`}
        testId="format-error"
      >
        {notFound ? 'It may have been deleted.' : query.error?.message}
      </Notice>
    );
  }
  const { format } = query.data;
  return (
    <article aria-labelledby="format-title">
      <p>
        <Link href="/formats">← Formats</Link>
      </p>
      <div className="section-head">
        <h1 id="format-title" className="mono">
          {format.bizTag}
        </h1>
        <LiveStamp updatedAt={query.dataUpdatedAt} failing={query.isError} />
      </div>
      {format.description && <p className="lead">{format.description}</p>}
      <dl className="stats">
        <div className="stat">
          <dt>Pattern</dt>
          <dd className="mono">{format.pattern}</dd>
        </div>
        <div className="stat">
          <dt>Reset</dt>
          <dd>
            {format.resetPeriod} in {format.timeZone}
          </dd>
        </div>
        <div className="stat">
          <dt>Current period</dt>
          <dd className="mono">{periodText(format.currentPeriod)}</dd>
        </div>
        <div className="stat" data-testid="stat-period-count">
          <dt>IDs claimed this period</dt>
          <dd>{showInt(format.currentCount)}</dd>
        </div>
      </dl>
      <TakeIds take={take} route={`/api/id/formatted/${format.bizTag}`} />
      <Periods detail={query.data} />
      <EditFormatForm key={format.updatedAt} format={format} />
      <DeleteFormatButton bizTag={format.bizTag} />
    </article>
  );
}

function Periods({ detail }: { detail: FormatDetailData }) {
  return (
    <section className="card" aria-labelledby="periods-title">
      <h2 id="periods-title">Periods</h2>
      {detail.periods.length === 0 ? (
        <p className="muted">No ID issued yet.</p>
      ) : (
        <div className="table-wrap">
          <table aria-label="Periods" data-testid="period-list">
            <thead>
              <tr>
                <th scope="col">Period</th>
                <th scope="col" className="num">
                  IDs claimed
                </th>
                <th scope="col" className="num">
                  Last claim
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {detail.periods.map((p) => (
                <tr key={p.periodKey} data-testid={`period-${p.periodKey || 'never'}`}>
                  <td className="mono">{periodText(p.periodKey)}</td>
                  <td className="num">{showInt(p.maxId)}</td>
                  <td className="num">{showInt(p.step)}</td>
                  <td className="mono nowrap">{showUtc(Date.parse(p.updatedAt))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted small">
        IDs claimed: numbers handed to nodes in segments; a node may still hold some it has not issued.
      </p>
    </section>
  );
}
