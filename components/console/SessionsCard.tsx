'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { LiveSession } from './api';
import { showUtc } from './display';
import { useEndAllSessions, useEndSession, useLiveSessions } from './queries';

/**
 * The live console sessions of the admin token (created, last seen, from where, which browser): end one, or sign
 * out everywhere. A session ends by itself after 30 minutes without a request, or 12 hours after it began.
 */
export function SessionsCard() {
  const sessions = useLiveSessions();
  const endAll = useEndAllSessions();
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const list = sessions.data ?? [];
  return (
    <section className="card" aria-labelledby="sessions-title">
      <div className="section-head">
        <h2 id="sessions-title">Console sessions</h2>
        {confirming ? (
          <span className="nowrap">
            <button
              type="button"
              className="button-danger"
              disabled={endAll.isPending}
              onClick={() => endAll.mutate(undefined, { onSuccess: () => router.replace('/login') })}
            >
              End all {list.length} sessions, this one too
            </button>{' '}
            <button type="button" className="button-quiet" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" className="button-quiet" onClick={() => setConfirming(true)}>
            Sign out everywhere…
          </button>
        )}
      </div>
      <p className="muted">
        A session ends at logout, after 30 minutes without a request, 12 hours after it began, or when the admin token
        changes.
      </p>
      {endAll.error && <p className="field-error">{endAll.error.message}</p>}
      {sessions.error && <p className="field-error">{sessions.error.message}</p>}
      <div className="table-wrap">
        <table aria-label="Console sessions" data-testid="session-list">
          <thead>
            <tr>
              <th scope="col">Signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">From</th>
              <th scope="col">Browser</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((s) => (
              <SessionRow key={s.id} session={s} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function SessionRow({ session: s }: { session: LiveSession }) {
  const end = useEndSession();
  return (
    <tr data-testid="session-row" data-id={s.id} data-current={s.current}>
      <td data-label="Signed in" className="nowrap" title={`session:${s.id}`}>
        {showUtc(s.createdAt)}
        {s.current && <span className="muted small"> (this one)</span>}
      </td>
      <td data-label="Last seen" className="nowrap">
        {showUtc(s.lastSeenAt)}
      </td>
      <td data-label="From" className="mono">
        {s.address}
      </td>
      <td data-label="Browser" className="small">
        {s.userAgent || '—'}
      </td>
      <td>
        {!s.current && (
          <button type="button" className="button-quiet" disabled={end.isPending} onClick={() => end.mutate(s.id)}>
            End
          </button>
        )}
        {end.error && <span className="field-error">{end.error.message}</span>}
      </td>
    </tr>
  );
}
