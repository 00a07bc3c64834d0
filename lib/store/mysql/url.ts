/**
 * `mysql://user:pass@host1:port1,host2:port2/db?opt=value`: a MySQL/MariaDB target with one or several hosts (a
 * Galera cluster), parsed by hand because WHATWG URL refuses a comma-separated host list. The hosts keep the
 * URL's order: the store prefers the first reachable one, so operators spread leaf-ts nodes over the cluster by
 * listing a different host first on each node.
 */

export interface MysqlHost {
  host: string;
  port: number;
}

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

/** A host:port the way logs and /api/health show it (IPv6 in brackets). */
export function hostLabel({ host, port }: MysqlHost): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Why a URL was refused; the text names the part, never the credentials. */
export class MysqlUrlError extends Error {
  override readonly name = 'MysqlUrlError';
}

const SHAPE = /^mysql:\/\/(?:([^@/?#]*)@)?([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?$/i;
const HOSTNAME = /^[A-Za-z0-9._-]+$/;

/** Throws MysqlUrlError with a message fit for a start-up line. */
export function parseMysqlUrl(url: string): MysqlTarget {
  const m = SHAPE.exec(url);
  if (m === null) throw new MysqlUrlError('mysql://user:pass@host:port[,host:port…]/db');
  const [, userinfo = '', hostList = '', path = '', query = ''] = m;
  const colon = userinfo.indexOf(':');
  const user = decode(colon === -1 ? userinfo : userinfo.slice(0, colon), 'the user');
  const password = colon === -1 ? '' : decode(userinfo.slice(colon + 1), 'the password');
  if (hostList === '') throw new MysqlUrlError('a host list (host:port[,host:port…]) after "@"');
  const hosts = hostList.split(',').map(parseHost);
  const seen = new Set<string>();
  for (const h of hosts) {
    const label = hostLabel(h);
    if (seen.has(label)) throw new MysqlUrlError(`a host list without repeats (${label} appears twice)`);
    seen.add(label);
  }
  const database = decode(path, 'the database name');
  if (database === '' || database.includes('/')) throw new MysqlUrlError('a database name after the hosts (mysql://…@host:port/db)');
  const options: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    // As mysql2's parseUrl: the URL's own parts are not overridable from the query.
    if (['host', 'port', 'user', 'password', 'database'].includes(key)) continue;
    try {
      options[key] = JSON.parse(value);
    } catch {
      options[key] = value;
    }
  }
  return { hosts, user, password, database, options };
}

function parseHost(entry: string, index: number): MysqlHost {
  const what = `host ${index + 1} of the host list`;
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]*))(?::(\d*))?$/.exec(entry.trim());
  const host = m?.[1] ?? decodeHost(m?.[2] ?? '');
  if (m === null || host === '' || (m[1] === undefined && !HOSTNAME.test(host))) {
    throw new MysqlUrlError(`a host list of host:port entries separated by commas (${what} is ${JSON.stringify(entry)})`);
  }
  const portText = m[3];
  if (portText === undefined) return { host, port: DEFAULT_MYSQL_PORT };
  const port = Number(portText);
  if (portText === '' || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new MysqlUrlError(`a host list with ports from 1 to 65535 (${what} has port ${JSON.stringify(portText)})`);
  }
  return { host, port };
}

function decodeHost(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new MysqlUrlError(`a URL whose ${what} is valid percent-encoding`);
  }
}
