/** `scheme://user:pass@h1:p1,h2:p2/db?opt=v`, parsed by hand (WHATWG URL refuses a host list); order kept. */

export interface ServerHost {
  host: string;
  port: number;
}

export interface ServerUrl {
  /** In the URL's order; at least one, no duplicates. */
  hosts: ServerHost[];
  user: string;
  password: string;
  database: string;
  /** The query options as text, in order (the URL's own parts never among them). */
  query: Array<[string, string]>;
}

/** A host:port the way logs and /api/health show it (IPv6 in brackets). */
export function hostLabel({ host, port }: ServerHost): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Why a URL was refused; the text names the part, never the credentials. */
export class DatabaseUrlError extends Error {
  override readonly name = 'DatabaseUrlError';
}

export interface UrlGrammar {
  /** The schemes accepted (lower case, without "://"), the first one named in messages. */
  schemes: string[];
  defaultPort: number;
}

const HOSTNAME = /^[A-Za-z0-9._-]+$/;
const URL_PARTS = ['host', 'port', 'user', 'password', 'database'];

/** Throws DatabaseUrlError with a message fit for a start-up line. */
export function parseServerUrl(url: string, { schemes, defaultPort }: UrlGrammar): ServerUrl {
  const scheme = schemes[0];
  const m = new RegExp(
    `^(?:${schemes.join('|')}):\\/\\/(?:([^@/?#]*)@)?([^/?#]*)(?:\\/([^?#]*))?(?:\\?([^#]*))?$`,
    'i',
  ).exec(url);
  if (m === null) throw new DatabaseUrlError(`${scheme}://user:pass@host:port[,host:port…]/db`);
  const [, userinfo = '', hostList = '', path = '', query = ''] = m;
  const colon = userinfo.indexOf(':');
  const user = decode(colon === -1 ? userinfo : userinfo.slice(0, colon), 'the user');
  const password = colon === -1 ? '' : decode(userinfo.slice(colon + 1), 'the password');
  if (hostList === '') throw new DatabaseUrlError('a host list (host:port[,host:port…]) after "@"');
  const hosts = hostList.split(',').map((entry, i) => parseHost(entry, i, defaultPort));
  const seen = new Set<string>();
  for (const h of hosts) {
    const label = hostLabel(h);
    if (seen.has(label)) throw new DatabaseUrlError(`a host list without repeats (${label} appears twice)`);
    seen.add(label);
  }
  const database = decode(path, 'the database name');
  if (database === '' || database.includes('/'))
    throw new DatabaseUrlError(`a database name after the hosts (${scheme}://…@host:port/db)`);
  // As the drivers' own URL parsers: the URL's own parts are not overridable from the query.
  const options = [...new URLSearchParams(query)].filter(([key]) => !URL_PARTS.includes(key));
  return { hosts, user, password, database, query: options };
}

function parseHost(entry: string, index: number, defaultPort: number): ServerHost {
  const what = `host ${index + 1} of the host list`;
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]*))(?::(\d*))?$/.exec(entry.trim());
  const host = m?.[1] ?? decodeHost(m?.[2] ?? '');
  if (m === null || host === '' || (m[1] === undefined && !HOSTNAME.test(host))) {
    throw new DatabaseUrlError(
      `a host list of host:port entries separated by commas (${what} is ${JSON.stringify(entry)})`,
    );
  }
  const portText = m[3];
  if (portText === undefined) return { host, port: defaultPort };
  const port = Number(portText);
  if (portText === '' || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new DatabaseUrlError(`a host list with ports from 1 to 65535 (${what} has port ${JSON.stringify(portText)})`);
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
    throw new DatabaseUrlError(`a URL whose ${what} is valid percent-encoding`);
  }
}
