/**
 * `mysql://user:pass@host1:port1,host2:port2/db?opt=value`: a MySQL/MariaDB target with one or several hosts (a
 * Galera cluster), in the URL's order: the store prefers the first reachable one, so operators spread leaf-ts nodes
 * over the cluster by listing a different host first on each node. The grammar is serverUrl.ts's.
 */
import { DatabaseUrlError, type ServerHost, hostLabel, parseServerUrl } from '../serverUrl';

export { DatabaseUrlError as MysqlUrlError, hostLabel };

export type MysqlHost = ServerHost;

export interface MysqlTarget {
  /** In the URL's order; at least one, no duplicates. */
  hosts: MysqlHost[];
  user: string;
  password: string;
  database: string;
  /** Query options, as mysql2's own URL parser reads them: JSON values where they parse (`true`, `5000`), else text. */
  options: Record<string, unknown>;
}

export const DEFAULT_MYSQL_PORT = 3306;

/** Throws MysqlUrlError with a message fit for a start-up line. */
export function parseMysqlUrl(url: string): MysqlTarget {
  const { query, ...target } = parseServerUrl(url, { schemes: ['mysql'], defaultPort: DEFAULT_MYSQL_PORT });
  const options: Record<string, unknown> = {};
  for (const [key, value] of query) {
    try {
      options[key] = JSON.parse(value);
    } catch {
      options[key] = value;
    }
  }
  return { ...target, options };
}
