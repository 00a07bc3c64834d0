/** A PostgreSQL target with one or several hosts (Patroni); writes only through the primary. */
import { DatabaseUrlError, type ServerHost, parseServerUrl } from '../serverUrl';

export interface PostgresTarget {
  /** In the URL's order; at least one, no duplicates. */
  hosts: ServerHost[];
  user: string;
  password: string;
  database: string;
  /** libpq's `sslmode`: disable (default) or require (encrypted, certificate not checked), verify-ca, verify-full. */
  sslmode: 'disable' | 'require' | 'verify-ca' | 'verify-full';
  /** Shown in pg_stat_activity; `leaf-ts` by default. */
  applicationName: string;
}

export const DEFAULT_POSTGRES_PORT = 5432;
const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;

/** Throws DatabaseUrlError with a message fit for a start-up line. */
export function parsePostgresUrl(url: string): PostgresTarget {
  const { query, ...target } = parseServerUrl(url, {
    schemes: ['postgres', 'postgresql'],
    defaultPort: DEFAULT_POSTGRES_PORT,
  });
  let sslmode: PostgresTarget['sslmode'] = 'disable';
  let applicationName = 'leaf-ts';
  for (const [key, value] of query) {
    if (key === 'sslmode') {
      // Not libpq's prefer/allow: they fall back to plain text silently; say which is meant.
      if (!(SSL_MODES as readonly string[]).includes(value))
        throw new DatabaseUrlError(`sslmode one of ${SSL_MODES.join(', ')} (got ${JSON.stringify(value)})`);
      sslmode = value as PostgresTarget['sslmode'];
    } else if (key === 'application_name') {
      applicationName = value;
    } else if (key === 'target_session_attrs') {
      // Writes go only to the primary, always: read-write and primary say so; anything else would not be honoured.
      if (value !== 'read-write' && value !== 'primary')
        throw new DatabaseUrlError(
          'target_session_attrs read-write or primary (leaf-ts writes only through the primary)',
        );
    } else {
      throw new DatabaseUrlError(
        `query options among sslmode, application_name, target_session_attrs (got ${JSON.stringify(key)})`,
      );
    }
  }
  return { ...target, sslmode, applicationName };
}
