import pg from 'pg';
import type { ServerHost } from '../serverUrl';
import type { PostgresTarget } from './url';

export type PgConfig = pg.ClientConfig;

const TIMESTAMP_WITHOUT_ZONE = 1114;

/** `timestamp` (without zone) as UTC: the sessions run in UTC, and a Leaf-style update_time has no zone of its own. */
function utcTimestamp(text: string): Date {
  return new Date(`${text.replace(' ', 'T')}Z`);
}

/** This store's own type parsers: int8 and numeric as decimal strings, timestamps without zone as UTC. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP_WITHOUT_ZONE && format !== 'binary'
      ? utcTimestamp
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** Bounded connect, keep-alive, UTC sessions, statement_timeout as a server-side backstop, no idle transaction. */
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
