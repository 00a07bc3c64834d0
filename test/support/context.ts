/** Test-side helpers: the MariaDB and PostgreSQL handed over by globalSetup, fresh per-file databases, temp dirs, time bounds. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { PostgresStore } from '../../lib/store/postgres';
import { type TestDatabase, createDatabase, createPgDatabase, pollFor, sleep } from '../../tools/harness';

export function mysqlUrl(): string {
  return inject('mysqlUrl');
}

export function mariadbAvailable(): boolean {
  return inject('mariadbAvailable');
}

export function pgUrl(): string {
  return inject('pgUrl');
}

/** A PostgreSQL database of its own for the calling test file (or test), on the shared server. */
export function freshPgDatabase(): Promise<TestDatabase> {
  return createPgDatabase(pgUrl());
}

/** A database of its own for the calling test file (or test), on the shared server. */
export function freshMysqlDatabase(): Promise<TestDatabase> {
  return createDatabase(mysqlUrl());
}

export interface TempDir {
  path: string;
  file(name: string): string;
  remove(): void;
}

export function tempDir(prefix = 'leaf-it-'): TempDir {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    path: dir,
    file: (name) => path.join(dir, name),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Rejects with a clear message when `promise` has not settled within `ms`: no test ever hangs silently. */
export async function within<T>(ms: number, promise: Promise<T> | T, what = 'operation'): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve(promise), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export { sleep };

/** Polls `check` until it returns a value other than undefined, at most `ms`; throws naming `what` past that. */
export async function waitFor<T>(
  ms: number,
  check: () => T | undefined | Promise<T | undefined>,
  what = 'condition',
  everyMs = 20,
): Promise<T> {
  const value = await pollFor(ms, check, everyMs);
  if (value === undefined) throw new Error(`${what} not reached within ${ms} ms`);
  return value;
}

/** A PostgreSQL database of its own with a PostgresStore on it and a raw connection beside it (`?` placeholders). */
export async function pgTestStore(): Promise<{
  store: PostgresStore;
  url: string;
  query(text: string, params?: unknown[]): Promise<pg.QueryResult>;
  close(): Promise<void>;
}> {
  const db = await freshPgDatabase();
  const store = await PostgresStore.open({ url: db.url });
  const conn = new pg.Client({ connectionString: db.url, options: '-c TimeZone=UTC' });
  await conn.connect();
  return {
    store,
    url: db.url,
    query: (text, params = []) => {
      let n = 0;
      return conn.query(
        text.replace(/\?/g, () => `$${++n}`),
        params,
      );
    },
    async close() {
      await conn.end().catch(() => {});
      await store.close();
      await db.drop();
    },
  };
}
