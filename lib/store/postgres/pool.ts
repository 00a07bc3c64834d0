import pg from 'pg';
import type { ServerHost } from '../serverUrl';
import type { PostgresTarget } from './url';

export type PgConfig = pg.ClientConfig;

const TIMESTAMP_WITHOUT_ZONE = 1114;

/** `timestamp` (without zone) as UTC: the sessions run in UTC, and a Leaf-style update_time has no zone of its own. */
function utcTimestamp(text: string): Date {
  return new Date(`${text.replace(' ', 'T')}Z`);
}

/**
 * Type parsers of this store's connections only (pg's global ones stay as the embedding application set them): int8
 * and numeric keep pg's default, decimal strings (exact past 2^53); timestamps without zone are read as UTC.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP_WITHOUT_ZONE && format !== 'binary'
      ? utcTimestamp
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * What every connection to `host` is opened with: bounded connect, keep-alive, UTC sessions, this store's type
 * parsers, statement_timeout as a server-side backstop (the executor bounds each statement itself as well) and no
 * transaction left idle for long, should a client vanish mid-transaction.
 */
export function poolConfig(
  target: PostgresTarget,
  host: ServerHost,
  connectTimeoutMs: number,
  queryTimeoutMs: number,
): PgConfig {
  return {
    host: host.host,
    port: host.port,
    user: target.user,
    password: target.password,
    database: target.database,
    application_name: target.applicationName,
    ssl:
      target.sslmode === 'disable'
        ? false
        : {
            rejectUnauthorized: target.sslmode !== 'require',
            ...(target.sslmode === 'verify-ca' ? { checkServerIdentity: () => undefined } : {}),
          },
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    statement_timeout: queryTimeoutMs,
    idle_in_transaction_session_timeout: Math.max(queryTimeoutMs * 4, 10_000),
    options: '-c TimeZone=UTC',
    types: TYPES,
  };
}
