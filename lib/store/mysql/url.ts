/** A MySQL/MariaDB target with one or several hosts (Galera), first reachable preferred: list a different one first per node. */
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
