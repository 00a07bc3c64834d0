/**
 * Several nodes start at the same moment on a fresh database: every one of them opens the store (migrations run
 * under GET_LOCK on MySQL, BEGIN IMMEDIATE on SQLite), and each migration is recorded exactly once.
 */
import Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsFolder } from '../../lib/store/migrations';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, tempDir } from '../support/context';
import { defined } from '../support/defined';
import { type TestDatabase, pgQuery } from '../../tools/harness';
import { type WorkerHandle, killAllWorkers, startWorker } from '../support/procs';

const PROCESSES = 4;
const ROUNDS = 4;

interface Opened {
  type: 'opened';
  round: number;
  ok: boolean;
  ms: number;
  error?: string;
  stack?: string;
}

let tmp: TempDir;
let workers: WorkerHandle[] = [];
const databases: TestDatabase[] = [];

beforeAll(async () => {
  tmp = tempDir('leaf-it-start-');
  workers = Array.from({ length: PROCESSES }, (_, i) =>
    startWorker('open.mts', `open-${i}`, { LEAF_WORKER_MAX_MS: '100000' }),
  );
  await Promise.all(workers.map((w) => w.next('ready', 30_000)));
});
afterAll(async () => {
  for (const w of workers) w.send({ type: 'job', kind: 'stop' });
  await Promise.race([Promise.all(workers.map((w) => w.exited)), new Promise((r) => setTimeout(r, 5_000))]);
  await killAllWorkers();
  await Promise.all(databases.map((d) => d.drop()));
  tmp?.remove();
});

/** All workers open the same target at the same wall-clock moment; returns their replies. */
async function openTogether(
  round: number,
  target: { dialect: 'mysql' | 'postgres' | 'sqlite'; url?: string; file?: string },
): Promise<Opened[]> {
  const at = Date.now() + 200;
  for (const w of workers) w.send({ type: 'job', kind: 'open', round, at, ...target });
  const replies = await Promise.all(workers.map((w) => w.next<Opened>('opened', 30_000)));
  for (const r of replies) expect(r.round).toBe(round);
  return replies;
}

function expectAllOk(replies: Opened[]): void {
  const failures = replies.map((r, i) => (r.ok ? null : `worker ${i}: ${r.error}`)).filter(Boolean);
  const stacks = replies.filter((r) => !r.ok).map((r) => r.stack);
  // tsx-compiled frames carry the whole module as a data: URL; keep the file name only.
  const tidy = (stack = '') =>
    stack
      .split('\n')
      .slice(0, 4)
      .map((line) =>
        line.replace(/\(data:text\/javascript,[^?]*\?filePath=([^:)]*)/, (_, f: string) => `(${decodeURIComponent(f)}`),
      )
      .join('\n');
  if (stacks.length > 0) console.log(`first failure's stack:\n${tidy(stacks[0])}`);
  expect(failures, 'every process opened the store').toEqual([]);
}

describe('concurrent start on a fresh database', () => {
  it('mysql: 4 processes run MysqlStore.open at once; each migration is applied exactly once', async () => {
    const expected = readMigrationFiles({ migrationsFolder: migrationsFolder('mysql') })
      .map((m) => m.hash)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    for (let round = 0; round < ROUNDS; round++) {
      const db = await freshMysqlDatabase();
      databases.push(db);
      expectAllOk(await openTogether(round, { dialect: 'mysql', url: db.url }));

      const conn = await mysql.createConnection({ uri: db.url });
      try {
        const [rows] = await conn.query(
          'SELECT hash, COUNT(*) AS n FROM `__drizzle_migrations` GROUP BY hash ORDER BY hash',
        );
        const applied = rows as Array<{ hash: string; n: number | string }>;
        expect(applied.map((r) => r.hash).sort()).toEqual(expected);
        for (const r of applied) expect(Number(r.n), `migration ${r.hash}`).toBe(1);
        const [total] = await conn.query('SELECT COUNT(*) AS n FROM `__drizzle_migrations`');
        expect(Number((total as Array<{ n: unknown }>)[0]?.n)).toBe(expected.length);
        const [tables] = await conn.query("SHOW TABLES LIKE 'leaf_alloc'");
        expect((tables as unknown[]).length).toBe(1);
      } finally {
        await conn.end();
      }
      // A later node finds nothing to do.
      const late = await MysqlStore.open({ url: db.url });
      await late.tags.createTag({ bizTag: 'after-start', step: 10 });
      expect(await late.tags.allocate('after-start')).toEqual({
        bizTag: 'after-start',
        maxId: 11,
        step: 10,
        semantics: 'leaf-ts',
      });
      await late.close();
    }
  });

  it('postgres: 4 processes run PostgresStore.open at once; each migration is applied exactly once (pg_advisory_lock)', async () => {
    const expected = readMigrationFiles({ migrationsFolder: migrationsFolder('postgres') })
      .map((m) => m.hash)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    for (let round = 0; round < ROUNDS; round++) {
      const db = await freshPgDatabase();
      databases.push(db);
      expectAllOk(await openTogether(round, { dialect: 'postgres', url: db.url }));
      const answers = await pgQuery(db.url, [
        'SELECT hash, COUNT(*) AS n FROM __drizzle_migrations GROUP BY hash ORDER BY hash',
        "SELECT 1 FROM information_schema.tables WHERE table_name = 'leaf_alloc'",
      ]);
      const applied = defined(answers[0], 'the applied migrations');
      const tables = defined(answers[1], 'the leaf_alloc table');
      expect(applied.rows.map((r: { hash: string }) => r.hash).sort()).toEqual(expected);
      for (const r of applied.rows as Array<{ hash: string; n: string }>)
        expect(Number(r.n), `migration ${r.hash}`).toBe(1);
      expect(tables.rowCount).toBe(1);
      const late = await PostgresStore.open({ url: db.url });
      await late.tags.createTag({ bizTag: 'after-start', step: 10 });
      expect(await late.tags.allocate('after-start')).toEqual({
        bizTag: 'after-start',
        maxId: 11,
        step: 10,
        semantics: 'leaf-ts',
      });
      await late.close();
    }
  });

  /** What every process must find after a concurrent start: each migration once, the table, WAL. */
  async function checkSqliteMigrated(file: string): Promise<void> {
    const expected = readMigrationFiles({ migrationsFolder: migrationsFolder('sqlite') })
      .map((m) => m.hash)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    const db = new Database(file, { readonly: true });
    try {
      const applied = db
        .prepare('SELECT hash, COUNT(*) AS n FROM __drizzle_migrations GROUP BY hash ORDER BY hash')
        .all() as Array<{
        hash: string;
        n: number;
      }>;
      expect(applied.map((r) => r.hash).sort()).toEqual(expected);
      for (const r of applied) expect(r.n, `migration ${r.hash}`).toBe(1);
      expect((db.prepare('SELECT COUNT(*) AS n FROM __drizzle_migrations').get() as { n: number }).n).toBe(
        expected.length,
      );
      expect(
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'leaf_alloc'").all(),
      ).toHaveLength(1);
      expect((db.pragma('journal_mode') as Array<{ journal_mode: string }>)[0]?.journal_mode).toBe('wal');
    } finally {
      db.close();
    }
    const late = new SqliteStore({ file });
    expect(late.created).toBe(false);
    await late.tags.createTag({ bizTag: 'after-start', step: 10 });
    expect(await late.tags.allocate('after-start')).toEqual({
      bizTag: 'after-start',
      maxId: 11,
      step: 10,
      semantics: 'leaf-ts',
    });
    await late.close();
  }

  it('sqlite: 4 processes migrate the same empty WAL file at once (BEGIN IMMEDIATE); each migration is applied exactly once', async () => {
    for (let round = 0; round < ROUNDS * 2; round++) {
      const file = tmp.file(`empty-${round}.db`);
      // An empty database already in WAL mode, no tables: the processes race on the migrations only.
      const init = new Database(file);
      init.pragma('journal_mode = WAL');
      init.close();
      expectAllOk(await openTogether(round, { dialect: 'sqlite', file }));
      await checkSqliteMigrated(file);
    }
  });

  // BUG (lib/store/sqlite/executor.ts, constructor): `PRAGMA journal_mode = WAL` on a brand-new file that other processes
  // open at the same moment throws SQLITE_BUSY ("database is locked") at once; busy_timeout does not cover a journal
  // mode change, and the constructor neither retries nor wraps the error (a raw SqliteError, not a LeafError).
  // Seen in about 1 of 4 rounds here. Rounds stop at the first failure; if all pass the bug is fixed: make it `it`.
  it('sqlite: 4 processes create and migrate the same brand-new file at once; all succeed', async () => {
    for (let round = 0; round < 40; round++) {
      const file = tmp.file(`new-${round}.db`);
      expectAllOk(await openTogether(1000 + round, { dialect: 'sqlite', file }));
      await checkSqliteMigrated(file);
    }
  });
});
