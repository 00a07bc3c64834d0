import { LeafError } from '../errors';
import type { TagStore } from '../segment/tagStore';
import { type MysqlTarget, parseMysqlUrl } from './mysql/url';
import { type PostgresTarget, parsePostgresUrl } from './postgres/url';
import { DatabaseUrlError } from './serverUrl';

/** Which database to open: the server's `config.store`, or `leaf-ts/embedded`'s own options. */
export interface StoreTarget {
  /** mysql://…: MySQL/MariaDB (Galera). */
  mysql: MysqlTarget | null;
  /** postgres://… or postgresql://…: PostgreSQL. With neither, SQLite at `sqliteFile`. */
  postgres: PostgresTarget | null;
  sqliteFile: string;
  migrationsDir: string;
}

/** The forms a database URL takes, for messages. */
export const DATABASE_URL_FORMS = 'mysql://user:pass@host:port/db, postgres://user:pass@host:port/db or file:path';

const SERVER_URL = /^(mysql|postgres|postgresql):/i;

/** Whether the URL names a database server (else it names a SQLite file). */
export function isServerUrl(url: string): boolean {
  return SERVER_URL.test(url);
}

/** What a database URL opens: a server's parsed target or a SQLite file; DatabaseUrlError otherwise. */
export function storeUrlTarget(url: string): Omit<StoreTarget, 'migrationsDir'> {
  if (/^mysql:/i.test(url)) return { mysql: parseMysqlUrl(url), postgres: null, sqliteFile: '' };
  if (/^postgres(ql)?:/i.test(url)) return { mysql: null, postgres: parsePostgresUrl(url), sqliteFile: '' };
  return { mysql: null, postgres: null, sqliteFile: url.replace(/^(file|sqlite):(\/\/)?/i, '') };
}

/** Why a server URL is refused (a start-up line's words, never its credentials); undefined when it parses. */
export function serverUrlProblem(url: string): string | undefined {
  try {
    storeUrlTarget(url);
    return undefined;
  } catch (error) {
    if (error instanceof DatabaseUrlError) return error.message;
    throw error;
  }
}

export const DEMO_TAG = { bizTag: 'demo', step: 1000, description: 'Demo tag, created on first start' } as const;

/** A new SQLite database gets one demo tag, so the app is useful at once. */
export async function seedDemoTag(tags: Pick<TagStore, 'createTag'>): Promise<void> {
  // Several processes may create the file together (cluster start): one of them seeds the demo tag.
  await tags.createTag(DEMO_TAG).catch((error: unknown) => {
    if (!(error instanceof LeafError && error.code === 'tag_exists')) throw error;
  });
}
