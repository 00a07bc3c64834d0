/**
 * The three databases the fleet tests run server processes on: a SQLite file in `leaf-ts` semantics, a database of
 * their own on the integration globalSetup's MariaDB in Java Leaf's `leaf` semantics (skipped without MariaDB), and
 * one on its PostgreSQL in `leaf-ts` semantics.
 */
import type { Semantics } from '../../lib/segment/semantics';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import type { LeafStore } from '../../lib/store/leafStore';
import type { TestDatabase } from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, mariadbAvailable } from './context';

export interface OpenDialect {
  /** The parent's own store: set-up and the final reading. */
  store: LeafStore;
  /** What createLeaf (leaf-ts/embedded) is given: `file:<path>`, the MariaDB URL or the PostgreSQL URL. */
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
  /** Drops the server databases that were opened: for afterAll, once every process on them has stopped. */
  drop(): Promise<void>;
}

/** The SQLite dialect keeps its database in `tmp.file(sqliteFile)`. */
export function serverDialects(sqliteFile: string): Dialects {
  const databases: TestDatabase[] = [];
  const opened = (
    semantics: Semantics,
    store: LeafStore,
    databaseUrl: string,
    env: Record<string, string>,
  ): OpenDialect => ({
    store,
    databaseUrl,
    serverEnv: (extra = {}) =>
      ({
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
          const database = await freshMysqlDatabase();
          databases.push(database);
          return opened('leaf', await MysqlStore.open({ url: database.url }), database.url, {
            DATABASE_URL: database.url,
          });
        },
      },
      {
        name: 'postgres',
        semantics: 'leaf-ts',
        async open() {
          const database = await freshPgDatabase();
          databases.push(database);
          return opened('leaf-ts', await PostgresStore.open({ url: database.url }), database.url, {
            DATABASE_URL: database.url,
          });
        },
      },
    ],
    drop: async () => {
      await Promise.all(databases.splice(0).map((d) => d.drop()));
    },
  };
}
