'use client';

import { Fragment } from 'react';
import { Notice } from '../ui/Notice';
import type { HealthView, HostHealth } from './api';
import { hostProblems } from '@/lib/admin/hostHealth';
import { showLatency, galeraSummary, sqliteLine } from './display';
import { LiveStamp } from './LiveStamp';
import { useHealth } from './queries';

/**
 * The database as /api/health sees it: SQLite in one line; MySQL/MariaDB and PostgreSQL one row per host of the URL,
 * with its Galera state (MySQL) or its role (PostgreSQL: primary, sync standby, async standby, standby). A host that needs
 * attention says so in words, not only in colour (a PostgreSQL cluster with no synchronous standby too).
 */
export function DatabaseCard() {
  const health = useHealth();
  const data = health.data;
  return (
    <section aria-labelledby="db-title" className="card db-card" data-testid="database">
      <div className="card-head">
        <h2 id="db-title">Database</h2>
        {data !== undefined && data.store.dialect !== 'sqlite' && (
          <span className="muted small">{data.store.dialect === 'postgres' ? 'PostgreSQL' : 'MySQL/MariaDB'}</span>
        )}
        <LiveStamp updatedAt={health.dataUpdatedAt} failing={health.isError} />
      </div>

      {health.isError && (
        <Notice
          kind={data === undefined ? 'error' : 'warn'}
          testId="database-error"
          title={
            data === undefined
              ? 'The database health cannot be loaded.'
              : 'The server stopped answering; this is the last good answer.'
          }
        >
          {health.error.message}{' '}
          <span className="muted">({'code' in health.error ? String(health.error.code) : 'error'})</span>
        </Notice>
      )}

      {health.isPending && <p className="muted">Checking the database…</p>}

      {data !== undefined && <DatabaseBody health={data} />}
    </section>
  );
}

function DatabaseBody({ health }: { health: HealthView }) {
  const { store } = health;
  if (store.dialect === 'sqlite' || store.hosts === undefined) {
    const line =
      store.dialect === 'sqlite'
        ? sqliteLine(store)
        : `Store ${store.reachable ? 'reachable' : 'unreachable'}, ${showLatency(store.latencyMs)}`;
    return (
      <p className={`db-line ${store.reachable ? '' : 'db-line-problem'}`} data-testid="database-line">
        <span className={`badge ${store.reachable ? 'badge-ok' : 'badge-error'}`}>
          {store.reachable ? 'reachable' : 'unreachable'}
        </span>
        <span>{line}</span>
      </p>
    );
  }
  const troubled = store.hosts.filter((h) => hostProblems(h).length > 0).length;
  return (
    <>
      <p className="db-summary small" data-testid="database-summary">
        {store.reachable
          ? `Store reachable, ${showLatency(store.latencyMs)}`
          : `Store unreachable${store.error ? `: ${store.error}` : ''}`}
        {' · '}
        {troubled === 0
          ? `all ${store.hosts.length} ${store.hosts.length === 1 ? 'host' : 'hosts'} healthy`
          : `${troubled} of ${store.hosts.length} ${store.hosts.length === 1 ? 'host needs' : 'hosts need'} attention`}
      </p>
      <div className="table-wrap">
        <table className="db-table" aria-label="Database hosts">
          <thead>
            <tr>
              <th scope="col">Host</th>
              <th scope="col">Status</th>
              <th scope="col">{store.dialect === 'postgres' ? 'Role' : 'Galera'}</th>
              <th scope="col" className="num">
                Latency
              </th>
            </tr>
          </thead>
          <tbody>
            {store.hosts.map((h) => (
              <HostRow key={h.host} host={h} />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function HostRow({ host: h }: { host: HostHealth }) {
  const problems = hostProblems(h);
  const attention = problems.length > 0;
  return (
    <tr data-testid={`db-host-${h.host}`} className={attention ? 'db-host-problem' : undefined}>
      <th scope="row" data-label="Host" className="mono">
        {h.host}
      </th>
      <td data-label="Status">
        <span className="db-status">
          <span className={`badge ${h.reachable ? 'badge-ok' : 'badge-error'}`}>
            {h.reachable ? 'reachable' : 'unreachable'}
          </span>
          {attention && (
            <span className="db-attention">
              {problems.map((p, i) => (
                <Fragment key={p}>
                  {i > 0 && ', '}
                  <span className="nowrap">
                    {i === 0 && <span aria-hidden="true">⚠ </span>}
                    {p}
                  </span>
                </Fragment>
              ))}
            </span>
          )}
        </span>
      </td>
      {h.postgres !== undefined ? (
        <td data-label="Role">{h.postgres.role}</td>
      ) : (
        <td data-label="Galera">
          {h.galera === undefined ? <span className="muted">—</span> : galeraSummary(h.galera)}
        </td>
      )}
      <td className="num" data-label="Latency">
        {h.reachable ? (
          showLatency(h.latencyMs)
        ) : (
          <span className="muted">failed after {showLatency(h.latencyMs)}</span>
        )}
      </td>
    </tr>
  );
}
