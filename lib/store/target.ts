import { LeafError } from '../errors';
import type { TagStore } from '../segment/tagStore';
import { type MysqlTarget, parseMysqlUrl } from './mysql/url';
import { type PostgresTarget, parsePostgresUrl } from './postgres/url';
import { DatabaseUrlError } from './serverUrl';

/** Where the data lives: a MySQL/MariaDB (Galera) server, a PostgreSQL server, or a SQLite file. */
export type StoreLocation =
  | { kind: 'mysql'; mysql: MysqlTarget }
  | { kind: 'postgres'; postgres: PostgresTarget }
  | { kind: 'sqlite'; sqliteFile: string };

/** Which database to open: the server's `config.store`, or `leaf-ts/embedded`'s own options. */
export type StoreTarget = StoreLocation & { migrationsDir: string };

/** The forms a database URL takes, for messages. */
export const DATABASE_URL_FORMS = 'mysql://user:pass@host:port/db, postgres://user:pass@host:port/db or file:path';

/** What a database URL opens: a server's parsed target or a SQLite file; DatabaseUrlError otherwise. */
export function storeUrlTarget(url: string): StoreLocation {
  if (/^mysql:/i.test(url)) return { kind: 'mysql', mysql: parseMysqlUrl(url) };
  if (/^postgres(ql)?:/i.test(url)) return { kind: 'postgres', postgres: parsePostgresUrl(url) };
  return { kind: 'sqlite', sqliteFile: url.replace(/^(file|sqlite):(\/\/)?/i, '') };
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
