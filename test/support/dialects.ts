/**
 * The two databases the fleet tests run server processes on: a SQLite file in `leaf-ts` semantics, and a database
 * of their own on the integration globalSetup's MariaDB in Java Leaf's `leaf` semantics (skipped without MariaDB).
 */
import type { Semantics } from '../../lib/segment/semantics';
import { MysqlStore } from '../../lib/store/mysql';
import { SqliteStore } from '../../lib/store/sqlite';
import type { LeafStore } from '../../lib/store/leafStore';
import type { TestDatabase } from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, mariadbAvailable } from './context';

export interface OpenDialect {
  /** The parent's own store: set-up and the final reading. */
  store: LeafStore;
  /** What createLeaf (leaf-ts/embedded) is given: `file:<path>` or the MariaDB URL. */
  databaseUrl: string;
  /** Environment for a server.ts process on this database: production, quiet, segment only, this semantics; `extra` last. */
  serverEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export interface Dialect {
  name: string;
  semantics: Semantics;
  skip?: () => boolean;
  open(tmp: TempDir): Promise<OpenDialect>;
}

export interface Dialects {
  /** For `describe.each`. */
  all: Dialect[];
  /** Drops the MariaDB database if one was opened: for afterAll, once every process on it has stopped. */
  drop(): Promise<void>;
}

/** The SQLite dialect keeps its database in `tmp.file(sqliteFile)`. */
export function serverDialects(sqliteFile: string): Dialects {
  let database: TestDatabase | undefined;
  const opened = (semantics: Semantics, store: LeafStore, databaseUrl: string, env: Record<string, string>): OpenDialect => ({
    store,
    databaseUrl,
    serverEnv: (extra = {}) => ({
      ...process.env,
      NODE_ENV: 'production',
      LEAF_SEGMENT_SEMANTICS: semantics,
      LEAF_LOG_LEVEL: 'warn',
      LEAF_SNOWFLAKE: 'off',
      ...env,
      ...extra,
    }) as NodeJS.ProcessEnv,
    close: async () => store.close(),
  });
  return {
    all: [
      {
        name: 'sqlite file',
        semantics: 'leaf-ts',
        async open(tmp) {
          const file = tmp.file(sqliteFile);
          return opened('leaf-ts', new SqliteStore({ file }), `file:${file}`, { LEAF_SQLITE_FILE: file });
        },
      },
      {
        name: 'mariadb',
        semantics: 'leaf',
        skip: () => !mariadbAvailable(),
        async open() {
          database = await freshMysqlDatabase();
          return opened('leaf', await MysqlStore.open({ url: database.url }), database.url, { DATABASE_URL: database.url });
        },
      },
    ],
    drop: async () => {
      await database?.drop();
    },
  };
}
