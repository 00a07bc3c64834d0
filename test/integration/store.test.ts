/**
 * MysqlStore on a real MariaDB and SqliteStore on a real file: the SegmentStore contract, edge rows set with raw
 * SQL (2^53 boundary, timestamps), charset, and errors as typed LeafErrors.
 */
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLeafError } from '../../lib/errors';
import { SegmentEngine } from '../../lib/segment/engine';
import { MysqlStore } from '../../lib/store/mysql';
import { SqliteStore } from '../../lib/store/sqlite';
import { MAX_SAFE_ID } from '../../lib/store/types';
import { type TempDir, freshMysqlDatabase, tempDir } from '../support/context';
import type { TestDatabase } from '../../tools/harness';

const MAX = BigInt(MAX_SAFE_ID); // 2^53 - 1

/** Raw access to the row behind the store, to set up and inspect edge cases. */
interface Raw {
  setMaxId(tag: string, value: bigint): Promise<void>;
  setStep(tag: string, step: number): Promise<void>;
  setUpdateTime(tag: string, utc: string): Promise<void>;
  row(tag: string): Promise<{ maxId: bigint; step: number; updateTime: string } | undefined>;
  close(): Promise<void>;
}

interface Harness {
  name: 'mysql' | 'sqlite';
  store: MysqlStore | SqliteStore;
  raw: Raw;
  teardown(): Promise<void>;
}

async function mysqlHarness(): Promise<Harness> {
  const db: TestDatabase = await freshMysqlDatabase();
  const store = await MysqlStore.open({ url: db.url });
  const conn = await mysql.createConnection({ uri: db.url, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true, timezone: 'Z' });
  await conn.query("SET time_zone = '+00:00'");
  const raw: Raw = {
    async setMaxId(tag, value) {
      await conn.query('UPDATE leaf_alloc SET max_id = ?, update_time = update_time WHERE biz_tag = ?', [value.toString(), tag]);
    },
    async setStep(tag, step) {
      await conn.query('UPDATE leaf_alloc SET step = ?, update_time = update_time WHERE biz_tag = ?', [step, tag]);
    },
    async setUpdateTime(tag, utc) {
      await conn.query('UPDATE leaf_alloc SET update_time = ? WHERE biz_tag = ?', [utc, tag]);
    },
    async row(tag) {
      const [rows] = await conn.query('SELECT max_id, step, update_time FROM leaf_alloc WHERE biz_tag = ?', [tag]);
      const r = (rows as Array<{ max_id: string; step: number; update_time: string }>)[0];
      return r && { maxId: BigInt(r.max_id), step: Number(r.step), updateTime: String(r.update_time) };
    },
    close: () => conn.end(),
  };
  return {
    name: 'mysql',
    store,
    raw,
    async teardown() {
      await raw.close();
      await store.close();
      await db.drop();
    },
  };
}

async function sqliteHarness(): Promise<Harness> {
  const dir: TempDir = tempDir('leaf-it-store-');
  const file = dir.file('store.db');
  const store = new SqliteStore({ file });
  const conn = new Database(file, { timeout: 5_000 });
  conn.defaultSafeIntegers(true);
  const raw: Raw = {
    async setMaxId(tag, value) {
      conn.prepare('UPDATE leaf_alloc SET max_id = ? WHERE biz_tag = ?').run(value, tag);
    },
    async setStep(tag, step) {
      conn.prepare('UPDATE leaf_alloc SET step = ? WHERE biz_tag = ?').run(BigInt(step), tag);
    },
    async setUpdateTime(tag, utc) {
      conn.prepare('UPDATE leaf_alloc SET update_time = ? WHERE biz_tag = ?').run(utc, tag);
    },
    async row(tag) {
      const r = conn.prepare('SELECT max_id, step, update_time FROM leaf_alloc WHERE biz_tag = ?').get(tag) as
        | { max_id: bigint; step: bigint; update_time: string }
        | undefined;
      return r && { maxId: BigInt(r.max_id), step: Number(r.step), updateTime: String(r.update_time) };
    },
    close: async () => void conn.close(),
  };
  return {
    name: 'sqlite',
    store,
    raw,
    async teardown() {
      await raw.close();
      await store.close();
      dir.remove();
    },
  };
}

async function leafErrorOf(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (!isLeafError(error)) throw new Error(`expected a LeafError, got ${String(error)}`, { cause: error });
    return { code: error.code, message: error.message };
  }
  throw new Error('expected a LeafError, but the call succeeded');
}

describe.each([
  { name: 'mysql', open: mysqlHarness },
  { name: 'sqlite', open: sqliteHarness },
])('$name store', ({ name, open }) => {
  let h: Harness;
  beforeAll(async () => {
    h = await open();
  });
  afterAll(async () => {
    await h?.teardown();
  });

  it('allocate on an unknown tag: LeafError tag_not_found (row step and explicit step); getTag: undefined', async () => {
    expect((await leafErrorOf(h.store.allocate('nope'))).code).toBe('tag_not_found');
    expect((await leafErrorOf(h.store.allocate('nope', 10))).code).toBe('tag_not_found');
    expect(await h.store.getTag('nope')).toBeUndefined();
    expect(await h.raw.row('nope')).toBeUndefined();
  });

  it('createTag twice: LeafError tag_exists, the first row is kept', async () => {
    await h.store.createTag({ bizTag: 'twice', step: 10, description: 'first' });
    const error = await leafErrorOf(h.store.createTag({ bizTag: 'twice', step: 99, description: 'second' }));
    expect(error.code).toBe('tag_exists');
    const row = await h.store.getTag('twice');
    expect(row).toMatchObject({ bizTag: 'twice', step: 10, maxId: 1, description: 'first' });
  });

  it("allocate: the row's own step, an explicit step, an operator's step change", async () => {
    await h.store.createTag({ bizTag: 'steps', step: 100 });
    expect(await h.store.allocate('steps')).toEqual({ bizTag: 'steps', maxId: 101, step: 100, semantics: 'leaf-ts' });
    expect(await h.store.allocate('steps', 250)).toEqual({ bizTag: 'steps', maxId: 351, step: 250, semantics: 'leaf-ts' });
    expect(await h.store.allocate('steps')).toEqual({ bizTag: 'steps', maxId: 451, step: 100, semantics: 'leaf-ts' });
    expect(await h.store.getTag('steps')).toMatchObject({ maxId: 451, step: 100 });
    await h.raw.setStep('steps', 300);
    expect(await h.store.allocate('steps')).toEqual({ bizTag: 'steps', maxId: 751, step: 300, semantics: 'leaf-ts' });
    expect((await h.raw.row('steps'))?.maxId).toBe(751n);

    // A tag migrated from an older scheme: the first segment starts above its max_id.
    await h.store.createTag({ bizTag: 'steps-offset', step: 100, maxId: 5_000 });
    expect(await h.store.allocate('steps-offset')).toEqual({ bizTag: 'steps-offset', maxId: 5_100, step: 100, semantics: 'leaf-ts' });
    const tags = await h.store.listTags();
    expect(tags.map((t) => t.bizTag)).toEqual([...tags.map((t) => t.bizTag)].sort());
    expect(tags).toContainEqual({ bizTag: 'steps', step: 300 });
    expect(tags).toContainEqual({ bizTag: 'steps-offset', step: 100 });
  });

  it('many concurrent allocations through one store: disjoint segments tiling the claimed range', async () => {
    await h.store.createTag({ bizTag: 'parallel', step: 7 });
    const steps = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? undefined : 1 + ((i * 37) % 50)));
    const allocations = await Promise.all(steps.map((s) => h.store.allocate('parallel', s)));
    allocations.forEach((a, i) => expect(a.step).toBe(steps[i] ?? 7));
    const segments = allocations.map((a) => [a.maxId - a.step + 1, a.maxId]).sort((x, y) => x[0] - y[0]);
    let next = 2;
    for (const [start, max] of segments) {
      expect(start).toBe(next);
      next = max + 1;
    }
    expect((await h.store.getTag('parallel'))?.maxId).toBe(next - 1);
  });

  it('max_id near 2^53-1: a claim that would pass it is refused with id_space_exhausted and the row is unchanged', async () => {
    await h.store.createTag({ bizTag: 'edge', step: 100 });
    await h.raw.setMaxId('edge', MAX - 50n);
    await h.raw.setUpdateTime('edge', '2001-02-03 04:05:06');
    const before = await h.raw.row('edge');
    expect((await leafErrorOf(h.store.allocate('edge'))).code).toBe('id_space_exhausted');
    expect((await leafErrorOf(h.store.allocate('edge', 51))).code).toBe('id_space_exhausted');
    expect(await h.raw.row('edge')).toEqual(before);
    expect(await h.store.getTag('edge')).toMatchObject({ maxId: MAX_SAFE_ID - 50 });

    // Exactly up to 2^53-1 is fine; one more is not.
    expect(await h.store.allocate('edge', 50)).toEqual({ bizTag: 'edge', maxId: MAX_SAFE_ID, step: 50, semantics: 'leaf-ts' });
    expect((await h.raw.row('edge'))?.maxId).toBe(MAX);
    expect((await leafErrorOf(h.store.allocate('edge', 1))).code).toBe('id_space_exhausted');
    expect((await h.raw.row('edge'))?.maxId).toBe(MAX);
  });

  it.each([0, -5])('a step of %i set by hand in SQL: allocate refuses with tag_misconfigured, max_id never moves', async (bad) => {
    const tag = `bad-step${bad}`;
    await h.store.createTag({ bizTag: tag, step: 10, maxId: 1_000 });
    await h.raw.setStep(tag, bad);
    const before = await h.raw.row(tag);
    expect((await leafErrorOf(h.store.allocate(tag))).code).toBe('tag_misconfigured');
    expect((await leafErrorOf(h.store.allocate(tag, bad))).code).toBe('tag_misconfigured');
    expect(await h.raw.row(tag)).toEqual(before);
  });

  it('an engine over an almost exhausted tag serves what fits and then fails with id_space_exhausted', async () => {
    await h.store.createTag({ bizTag: 'edge-engine', step: 100 });
    await h.raw.setMaxId('edge-engine', MAX - 150n);
    const engine = new SegmentEngine({ store: h.store, refreshIntervalMs: 0, retryBaseMs: 1, retryMaxMs: 5 });
    await engine.start();
    const ids = await engine.take('edge-engine', 100);
    expect(ids[0]).toBe(MAX_SAFE_ID - 149);
    expect(ids[99]).toBe(MAX_SAFE_ID - 50);
    // The next (doubled) segment does not fit below 2^53: a typed error, never a wrapped or rounded ID.
    expect((await leafErrorOf(Promise.resolve().then(() => engine.next('edge-engine')))).code).toBe('id_space_exhausted');
    engine.stop();
  });

  it('a row whose max_id is already above 2^53: allocate refuses with id_space_exhausted, row unchanged', async () => {
    await h.store.createTag({ bizTag: 'beyond', step: 10 });
    await h.raw.setMaxId('beyond', 2n ** 53n + 1n);
    const before = await h.raw.row('beyond');
    expect((await leafErrorOf(h.store.allocate('beyond'))).code).toBe('id_space_exhausted');
    expect((await leafErrorOf(h.store.allocate('beyond', 1))).code).toBe('id_space_exhausted');
    expect(await h.raw.row('beyond')).toEqual(before);
    expect(await h.store.listTags()).toContainEqual({ bizTag: 'beyond', step: 10 });
  });

  it('a row whose max_id is above 2^53: getTag throws id_space_exhausted, not a rounded number', async () => {
    await h.store.createTag({ bizTag: 'beyond-read', step: 10 });
    await h.raw.setMaxId('beyond-read', 2n ** 53n + 1n);
    expect((await leafErrorOf(h.store.getTag('beyond-read'))).code).toBe('id_space_exhausted');
    await h.raw.setMaxId('beyond-read', 2n ** 53n);
    expect((await leafErrorOf(h.store.getTag('beyond-read'))).code).toBe('id_space_exhausted');
  });

  it('update_time is read as UTC and moves to now on allocate', async () => {
    await h.store.createTag({ bizTag: 'clock', step: 10 });
    await h.raw.setUpdateTime('clock', '2001-02-03 04:05:06');
    expect((await h.store.getTag('clock'))?.updateTime.toISOString()).toBe('2001-02-03T04:05:06.000Z');
    await h.store.allocate('clock');
    const after = (await h.store.getTag('clock'))!.updateTime.getTime();
    expect(Math.abs(after - Date.now()), `update_time ${new Date(after).toISOString()} vs now`).toBeLessThan(120_000);
  });

  it('description round-trips 4-byte UTF-8', async () => {
    const description = 'emoji 🦄🚀, CJK 美团, accents ünïcödé';
    await h.store.createTag({ bizTag: 'utf8', step: 10, description });
    expect((await h.store.getTag('utf8'))?.description).toBe(description);
  });

  it('ping works; after close every call fails with store_unavailable', async () => {
    const other = name === 'mysql' ? await mysqlHarness() : await sqliteHarness();
    try {
      await other.store.ping();
      await other.store.createTag({ bizTag: 'closing', step: 10 });
      await other.raw.close();
      await other.store.close();
      expect((await leafErrorOf(other.store.ping())).code).toBe('store_unavailable');
      expect((await leafErrorOf(other.store.allocate('closing'))).code).toBe('store_unavailable');
    } finally {
      await other.teardown().catch(() => {});
    }
  });
});

describe('mysql specifics', () => {
  let db: TestDatabase;
  let store: MysqlStore;
  beforeAll(async () => {
    db = await freshMysqlDatabase();
    store = await MysqlStore.open({ url: db.url });
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('leaf_alloc is utf8mb4 (table collation and every text column)', async () => {
    const conn = await mysql.createConnection({ uri: db.url });
    try {
      const [tables] = await conn.query('SELECT TABLE_COLLATION AS c, ENGINE AS e FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [
        db.name,
        'leaf_alloc',
      ]);
      const t = (tables as Array<{ c: string; e: string }>)[0];
      expect(t.c).toMatch(/^utf8mb4_/);
      expect(t.e).toBe('InnoDB');
      const [columns] = await conn.query(
        'SELECT COLUMN_NAME AS n, CHARACTER_SET_NAME AS cs FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CHARACTER_SET_NAME IS NOT NULL',
        [db.name, 'leaf_alloc'],
      );
      const cols = columns as Array<{ n: string; cs: string }>;
      expect(cols.map((c) => c.n).sort()).toEqual(['biz_tag', 'description']);
      for (const c of cols) expect(c.cs, c.n).toBe('utf8mb4');
    } finally {
      await conn.end();
    }
  });

  it('MysqlStore.open against a port where nothing listens fails within a bounded time', async () => {
    const t = Date.now();
    // Port 9 (discard) on 127.0.0.1: nothing listens there, the connect is refused.
    const error = await MysqlStore.open({ url: 'mysql://x:y@127.0.0.1:9/none', connectTimeoutMs: 1_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    expect(Date.now() - t).toBeLessThan(5_000);
  });
});
