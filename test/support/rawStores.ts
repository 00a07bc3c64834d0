/**
 * A store on a fresh database of each dialect, beside a raw connection of its own, for the store tests that set a
 * scene or break a table by hand. Statements use `?` placeholders in every dialect. Everything opened is closed
 * (and the server databases dropped) after the file's tests.
 */
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { afterAll } from 'vitest';
import type { LeafStore } from '../../lib/store/leafStore';
import { MysqlStore } from '../../lib/store/mysql';
import { SqliteStore } from '../../lib/store/sqlite';
import { type TempDir, freshMysqlDatabase, pgTestStore, tempDir } from './context';

export type StoreDialect = 'mysql' | 'postgres' | 'sqlite';

export interface RawStore {
  store: LeafStore;
  /** The database's URL (`file:<path>` for SQLite), for more pools on it. */
  url: string;
  /** One statement on the raw connection. */
  exec(text: string, params?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

/** Call at a test file's top level: `const openStore = rawStoreOpener('leaf-it-audit-')`. */
export function rawStoreOpener(prefix: string): (dialect: StoreDialect) => Promise<RawStore> {
  let tmp: TempDir | undefined;
  let files = 0;
  const opened: RawStore[] = [];
  afterAll(async () => {
    for (const h of opened.splice(0)) await h.close().catch(() => undefined);
    tmp?.remove();
  });

  const open: Record<StoreDialect, () => Promise<RawStore>> = {
    async postgres() {
      const t = await pgTestStore();
      return {
        store: t.store,
        url: t.url,
        exec: async (text, params) => void (await t.query(text, params)),
        close: t.close,
      };
    },
    async mysql() {
      const db = await freshMysqlDatabase();
      const store = await MysqlStore.open({ url: db.url });
      const conn = await mysql.createConnection({ uri: db.url });
      return {
        store,
        url: db.url,
        exec: async (text, params = []) => void (await conn.query(text, params)),
        async close() {
          await conn.end();
          await store.close();
          await db.drop();
        },
      };
    },
    async sqlite() {
      tmp ??= tempDir(prefix);
      const file = tmp.file(`store-${files++}.db`);
      const store = new SqliteStore({ file });
      const conn = new Database(file, { timeout: 5_000 });
      return {
        store,
        url: `file:${file}`,
        exec: async (text, params = []) => void conn.prepare(text).run(...params),
        async close() {
          conn.close();
          await store.close();
        },
      };
    },
  };

  return async (dialect) => {
    const h = await open[dialect]();
    opened.push(h);
    return h;
  };
}
