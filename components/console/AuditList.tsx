'use client';

import Link from 'next/link';
import { Notice } from '../ui/Notice';
import type { AuditEntryView } from './api';
import './audit.css';
import { AUDIT_ACTION_LABEL, auditChanges, formatWhen } from './auditDisplay';
import { useAudit } from './queries';

/**
 * The audit trail, newest first, with "Older" paging back: every entry when `bizTag` is absent (the audit page),
 * else that tag's changes (the tag page). Entries made through any node show up, since every node writes the
 * same leaf_audit table.
 */
export function AuditList({ bizTag }: { bizTag?: string }) {
  const query = useAudit(bizTag);
  const entries = query.data?.pages.flatMap((p) => p.entries) ?? [];
  const global = bizTag === undefined;
  const titleId = global ? 'audit-title' : 'tag-audit-title';
  return (
    <section aria-labelledby={titleId} className="card">
      <h2 id={titleId}>{global ? 'Every change and login' : 'Changes'}</h2>
      {query.isError && (
        <Notice
          kind={query.data === undefined ? 'error' : 'warn'}
          title={
            query.data === undefined
              ? 'The audit trail cannot be loaded.'
              : 'The server stopped answering; this list may be behind.'
          }
        >
          {query.error.message}
        </Notice>
      )}
      {query.isPending ? (
        <p className="muted">Loading the audit trail…</p>
      ) : entries.length === 0 ? (
        <p className="muted" data-testid="audit-empty">
          {global ? 'Nothing recorded yet.' : 'No change to this tag has been recorded.'}
        </p>
      ) : (
        <div className="table-wrap">
          <table
            className="audit-table"
            aria-label={global ? 'Audit trail' : `Changes to ${bizTag}`}
            data-testid="audit-list"
          >
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                {global && <th scope="col">Tag</th>}
                <th scope="col">Change</th>
                <th scope="col">Who</th>
                <th scope="col">From</th>
                <th scope="col">Node</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <AuditRow key={e.id} entry={e} showTag={global} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {query.hasNextPage && (
        <button
          type="button"
          className="button-quiet audit-more"
          disabled={query.isFetchingNextPage}
          onClick={() => void query.fetchNextPage()}
        >
          {query.isFetchingNextPage ? 'Loading…' : 'Older'}
        </button>
      )}
    </section>
  );
}

function AuditRow({ entry: e, showTag }: { entry: AuditEntryView; showTag: boolean }) {
  const changes = auditChanges(e);
  return (
    <tr data-testid="audit-row" data-action={e.action} data-id={e.id}>
      <td className="mono nowrap" data-label="When">
        <time dateTime={e.at} title={e.at}>
          {formatWhen(e.at)}
        </time>
      </td>
      <td data-label="Action">
        <span className={`audit-action${e.action === 'auth.login_failed' ? ' audit-action-refused' : ''}`}>
          {AUDIT_ACTION_LABEL[e.action]}
        </span>
      </td>
      {showTag && (
        <td data-label="Tag">
          {e.bizTag === null ? (
            <span className="muted">—</span>
          ) : (
            <Link className="tag-link" href={`/tags/${encodeURIComponent(e.bizTag)}`}>
              {e.bizTag}
            </Link>
          )}
        </td>
      )}
      <td data-label="Change">
        {changes.length === 0 ? (
          <span className="muted">—</span>
        ) : (
          <ul className="audit-change">
            {changes.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        )}
      </td>
      <td className="audit-actor" data-label="Who">
        {e.actor}
      </td>
      <td className="mono" data-label="From">
        {e.address}
      </td>
      <td className="mono" data-label="Node">
        {e.nodeId}
      </td>
    </tr>
  );
}
