/**
 * MysqlStore on a real MariaDB, PostgresStore on a real PostgreSQL and SqliteStore on a real file: the tag store's contract (store.tags), edge rows set with raw
 * SQL (2^53 and 2^63−1 boundaries, timestamps), charset, and errors as typed LeafErrors.
 */
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLeafError } from '../../lib/errors';
import { SegmentEngine } from '../../lib/segment/engine';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import { MAX_ID } from '../../lib/segment/id';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, tempDir } from '../support/context';
import type { TestDatabase } from '../../tools/harness';

const MAX = MAX_ID; // 2^63 − 1

/** Raw access to the row behind the store, to set up and inspect edge cases. */
interface Raw {
  setMaxId(tag: string, value: bigint): Promise<void>;
  setStep(tag: string, step: number): Promise<void>;
  setUpdateTime(tag: string, utc: string): Promise<void>;
  row(tag: string): Promise<{ maxId: bigint; step: number; updateTime: string } | undefined>;
  close(): Promise<void>;
}

interface Harness {
  name: 'mysql' | 'postgres' | 'sqlite';
  store: MysqlStore | PostgresStore | SqliteStore;
  raw: Raw;
  teardown(): Promise<void>;
}

async function mysqlHarness(): Promise<Harness> {
  const db: TestDatabase = await freshMysqlDatabase();
  const store = await MysqlStore.open({ url: db.url });
  const conn = await mysql.createConnection({
    uri: db.url,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    timezone: 'Z',
  });
  await conn.query("SET time_zone = '+00:00'");
  const raw: Raw = {
    async setMaxId(tag, value) {
      await conn.query('UPDATE leaf_alloc SET max_id = ?, update_time = update_time WHERE biz_tag = ?', [
        value.toString(),
        tag,
      ]);
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

async function postgresHarness(): Promise<Harness> {
  const db: TestDatabase = await freshPgDatabase();
  const store = await PostgresStore.open({ url: db.url });
  const conn = new pg.Client({ connectionString: db.url, options: '-c TimeZone=UTC' });
  await conn.connect();
  const raw: Raw = {
    async setMaxId(tag, value) {
      await conn.query('UPDATE leaf_alloc SET max_id = $1 WHERE biz_tag = $2', [value.toString(), tag]);
    },
    async setStep(tag, step) {
      await conn.query('UPDATE leaf_alloc SET step = $1 WHERE biz_tag = $2', [step, tag]);
    },
    async setUpdateTime(tag, utc) {
      await conn.query('UPDATE leaf_alloc SET update_time = $1 WHERE biz_tag = $2', [utc, tag]);
    },
    async row(tag) {
      const { rows } = await conn.query<{ max_id: string; step: number; update_time: string }>(
        "SELECT max_id, step, to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') AS update_time FROM leaf_alloc WHERE biz_tag = $1",
        [tag],
      );
      const r = rows[0];
      return r && { maxId: BigInt(r.max_id), step: Number(r.step), updateTime: String(r.update_time) };
    },
    close: () => conn.end(),
  };
  return {
    name: 'postgres',
    store,
    raw,
    async teardown() {
      await raw.close().catch(() => {});
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
        { max_id: bigint; step: bigint; update_time: string } | undefined;
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
  { name: 'postgres', open: postgresHarness },
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
    expect((await leafErrorOf(h.store.tags.allocate('nope'))).code).toBe('tag_not_found');
    expect((await leafErrorOf(h.store.tags.allocate('nope', 10))).code).toBe('tag_not_found');
    expect(await h.store.tags.getTag('nope')).toBeUndefined();
    expect(await h.raw.row('nope')).toBeUndefined();
  });

  it('createTag twice: LeafError tag_exists, the first row is kept', async () => {
    await h.store.tags.createTag({ bizTag: 'twice', step: 10, description: 'first' });
    const error = await leafErrorOf(h.store.tags.createTag({ bizTag: 'twice', step: 99, description: 'second' }));
    expect(error.code).toBe('tag_exists');
    const row = await h.store.tags.getTag('twice');
    expect(row).toMatchObject({ bizTag: 'twice', step: 10, maxId: 1, description: 'first' });
  });

  it("allocate: the row's own step, an explicit step, an operator's step change", async () => {
    await h.store.tags.createTag({ bizTag: 'steps', step: 100 });
    expect(await h.store.tags.allocate('steps')).toEqual({
      bizTag: 'steps',
      maxId: 101,
      step: 100,
      semantics: 'leaf-ts',
    });
    expect(await h.store.tags.allocate('steps', 250)).toEqual({
      bizTag: 'steps',
      maxId: 351,
      step: 250,
      semantics: 'leaf-ts',
    });
    expect(await h.store.tags.allocate('steps')).toEqual({
      bizTag: 'steps',
      maxId: 451,
      step: 100,
      semantics: 'leaf-ts',
    });
    expect(await h.store.tags.getTag('steps')).toMatchObject({ maxId: 451, step: 100 });
    await h.raw.setStep('steps', 300);
    expect(await h.store.tags.allocate('steps')).toEqual({
      bizTag: 'steps',
      maxId: 751,
      step: 300,
      semantics: 'leaf-ts',
    });
    expect((await h.raw.row('steps'))?.maxId).toBe(751n);

    // A tag migrated from an older scheme: the first segment starts above its max_id.
    await h.store.tags.createTag({ bizTag: 'steps-offset', step: 100, maxId: 5_000 });
    expect(await h.store.tags.allocate('steps-offset')).toEqual({
      bizTag: 'steps-offset',
      maxId: 5_100,
      step: 100,
      semantics: 'leaf-ts',
    });
    const tags = await h.store.tags.listTags();
    expect(tags.map((t) => t.bizTag)).toEqual([...tags.map((t) => t.bizTag)].sort());
    expect(tags).toContainEqual({ bizTag: 'steps', step: 300 });
    expect(tags).toContainEqual({ bizTag: 'steps-offset', step: 100 });
  });

  it('many concurrent allocations through one store: disjoint segments tiling the claimed range', async () => {
    await h.store.tags.createTag({ bizTag: 'parallel', step: 7 });
    const steps = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? undefined : 1 + ((i * 37) % 50)));
    const allocations = await Promise.all(steps.map((s) => h.store.tags.allocate('parallel', s)));
    allocations.forEach((a, i) => expect(a.step).toBe(steps[i] ?? 7));
    const segments = allocations
      .map((a): [number, number] => [Number(a.maxId) - a.step + 1, Number(a.maxId)])
      .sort((x, y) => x[0] - y[0]);
    let next = 2;
    for (const [start, max] of segments) {
      expect(start).toBe(next);
      next = max + 1;
    }
    expect((await h.store.tags.getTag('parallel'))?.maxId).toBe(next - 1);
  });

  it.each(['leaf-ts', 'leaf'] as const)(
    'max_id near 2^63−1 in %s: claims are exact up to it, one past it is id_space_exhausted, row unchanged',
    async (semantics) => {
      const tag = `edge-${semantics}`;
      await h.store.tags.createTag({ bizTag: tag, step: 100 });
      await h.store.semantics.setTagSemantics(tag, semantics);
      await h.raw.setMaxId(tag, MAX - 1_050n);
      // Exact decimal values, straight from the claim (MySQL: the OK packet's LAST_INSERT_ID, bit 63 the semantics).
      expect(await h.store.tags.allocate(tag, 1_000)).toEqual({
        bizTag: tag,
        maxId: MAX - 50n,
        step: 1_000,
        semantics,
      });
      expect((await h.raw.row(tag))?.maxId).toBe(MAX - 50n);
      await h.raw.setUpdateTime(tag, '2001-02-03 04:05:06');
      const before = await h.raw.row(tag);
      expect((await leafErrorOf(h.store.tags.allocate(tag))).code).toBe('id_space_exhausted'); // the row's step, 100
      const refused = await leafErrorOf(h.store.tags.allocate(tag, 51));
      expect(refused.code).toBe('id_space_exhausted');
      expect(refused.message).toContain('2^63−1');
      expect(await h.raw.row(tag)).toEqual(before);
      expect(await h.store.tags.getTag(tag)).toMatchObject({ maxId: MAX - 50n });

      // Exactly up to 2^63−1 is fine; one more is not.
      expect(await h.store.tags.allocate(tag, 50)).toEqual({ bizTag: tag, maxId: MAX, step: 50, semantics });
      expect((await h.raw.row(tag))?.maxId).toBe(MAX);
      expect((await leafErrorOf(h.store.tags.allocate(tag, 1))).code).toBe('id_space_exhausted');
      expect((await h.raw.row(tag))?.maxId).toBe(MAX);
    },
  );

  it.each(['leaf-ts', 'leaf'] as const)(
    'claims across 2^53 and from a migrated max_id of 10^17 are exact in %s',
    async (semantics) => {
      const tag = `wide-${semantics}`;
      await h.store.tags.createTag({ bizTag: tag, step: 10 });
      await h.store.semantics.setTagSemantics(tag, semantics); // leaf-ts → leaf skips one ID: set max_id after it
      await h.raw.setMaxId(tag, 100000000000000000n);
      expect((await h.store.tags.getTag(tag))?.maxId).toBe(100000000000000000n);
      expect(await h.store.tags.allocate(tag)).toEqual({
        bizTag: tag,
        maxId: 100000000000000010n,
        step: 10,
        semantics,
      });
      expect(await h.store.tags.allocate(tag, 7)).toEqual({
        bizTag: tag,
        maxId: 100000000000000017n,
        step: 7,
        semantics,
      });
      expect((await h.raw.row(tag))?.maxId).toBe(100000000000000017n);
      // Across 2^53: the last claim below it answers a number, the next a bigint, both exact.
      await h.raw.setMaxId(tag, 2n ** 53n - 11n);
      expect(await h.store.tags.allocate(tag, 10)).toEqual({
        bizTag: tag,
        maxId: Number.MAX_SAFE_INTEGER,
        step: 10,
        semantics,
      });
      expect(await h.store.tags.allocate(tag, 1)).toEqual({ bizTag: tag, maxId: 2n ** 53n, step: 1, semantics });
      expect(await h.store.tags.allocate(tag, 3)).toEqual({ bizTag: tag, maxId: 2n ** 53n + 3n, step: 3, semantics });
    },
  );

  it('an engine over an almost exhausted tag serves exact IDs up to 2^63−1 and then fails with id_space_exhausted', async () => {
    await h.store.tags.createTag({ bizTag: 'edge-engine', step: 100 });
    await h.raw.setMaxId('edge-engine', MAX - 150n);
    const engine = new SegmentEngine({ store: h.store.tags, refreshIntervalMs: 0, retryBaseMs: 1, retryMaxMs: 5 });
    await engine.start();
    const ids = await engine.takeIds('edge-engine', 100);
    expect(ids[0]).toBe(MAX - 149n);
    expect(ids[99]).toBe(MAX - 50n);
    expect(new Set(ids).size).toBe(100);
    // The next (doubled) segment does not fit below 2^63: a typed error naming the limit, never a wrapped ID.
    const error = await leafErrorOf(Promise.resolve().then(() => engine.nextId('edge-engine')));
    expect(error.code).toBe('id_space_exhausted');
    expect(error.message).toContain('2^63−1');
    engine.stop();
  });

  it('max_id above 2^53 is read, raised, tombstoned and re-created exactly (never through a float)', async () => {
    const odd = 2n ** 53n + 1n; // a float would read it as 2^53
    await h.store.tags.createTag({ bizTag: 'beyond', step: 10, maxId: odd });
    expect((await h.store.tags.getTag('beyond'))?.maxId).toBe(odd);
    expect((await h.store.tags.listTagRows()).find((r) => r.bizTag === 'beyond')?.maxId).toBe(odd);
    const lowered = await leafErrorOf(h.store.tags.raiseMaxId('beyond', 2n ** 53n));
    expect(lowered.code).toBe('max_id_lowered');
    expect(lowered.message).toContain(String(odd));
    const raised = 4611686018427387905n; // 2^62 + 1
    expect((await h.store.tags.raiseMaxId('beyond', raised)).maxId).toBe(raised);
    expect((await h.raw.row('beyond'))?.maxId).toBe(raised);
    // The semantics switch's skip (leaf-ts → leaf: max_id + 1) is exact up there too; back to leaf-ts adds nothing.
    expect((await h.store.semantics.setTagSemantics('beyond', 'leaf')).bumped).toBe(1);
    expect((await h.raw.row('beyond'))?.maxId).toBe(raised + 1n);
    await h.store.semantics.setTagSemantics('beyond', null);
    await h.raw.setMaxId('beyond', raised);
    expect(await h.store.tags.deleteTag('beyond')).toEqual({ maxId: raised });
    expect(await h.store.tags.getTombstone('beyond')).toEqual({ maxId: raised });
    expect((await leafErrorOf(h.store.tags.createTag({ bizTag: 'beyond', step: 10, maxId: raised - 1n }))).code).toBe(
      'max_id_below_tombstone',
    );
    expect((await h.store.tags.createTag({ bizTag: 'beyond', step: 10 })).maxId).toBe(raised);
    expect(await h.store.tags.allocate('beyond')).toMatchObject({ maxId: raised + 10n });
  });

  it('update_time is read as UTC and moves to now on allocate', async () => {
    await h.store.tags.createTag({ bizTag: 'clock', step: 10 });
    await h.raw.setUpdateTime('clock', '2001-02-03 04:05:06');
    expect((await h.store.tags.getTag('clock'))?.updateTime.toISOString()).toBe('2001-02-03T04:05:06.000Z');
    await h.store.tags.allocate('clock');
    const after = (await h.store.tags.getTag('clock'))!.updateTime.getTime();
    expect(Math.abs(after - Date.now()), `update_time ${new Date(after).toISOString()} vs now`).toBeLessThan(120_000);
  });

  it('description round-trips 4-byte UTF-8', async () => {
    const description = 'emoji 🦄🚀, CJK 美团, accents ünïcödé';
    await h.store.tags.createTag({ bizTag: 'utf8', step: 10, description });
    expect((await h.store.tags.getTag('utf8'))?.description).toBe(description);
  });

  it('ping works; after close every call fails with store_unavailable', async () => {
    const other =
      name === 'mysql' ? await mysqlHarness() : name === 'postgres' ? await postgresHarness() : await sqliteHarness();
    try {
      await other.store.ping();
      await other.store.tags.createTag({ bizTag: 'closing', step: 10 });
      await other.raw.close();
      await other.store.close();
      expect((await leafErrorOf(other.store.ping())).code).toBe('store_unavailable');
      expect((await leafErrorOf(other.store.tags.allocate('closing'))).code).toBe('store_unavailable');
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
      const [tables] = await conn.query(
        'SELECT TABLE_COLLATION AS c, ENGINE AS e FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
        [db.name, 'leaf_alloc'],
      );
      const t = (tables as Array<{ c: string; e: string }>)[0];
      expect(t?.c).toMatch(/^utf8mb4_/);
      expect(t?.e).toBe('InnoDB');
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
