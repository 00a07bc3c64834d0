/**
 * What only PostgreSQL needs proven (the store contract itself runs on it in store.test.ts and the other store tests):
 *
 * - A Leaf-style leaf_alloc made by hand (bigint, varchar(128), integer step, timestamp) is used as it is.
 * - A claim that waited on a semantics switch's row lock reads the switch's semantics (the statement after its
 *   UPDATE, a fresh READ COMMITTED snapshot) — where one statement would read the old ones (shown here too) and hand
 *   out IDs again; and a fleet default flipped while three stores claim one row: no two ranges overlap.
 * - A standby (in recovery) is never written through: alone in the URL it is store_unavailable saying so; listed
 *   first, the primary behind it takes the writes; /api/health's probe names each host's role.
 * - A commit whose wait for the synchronous standby is cancelled answers success with only a WARNING: the store
 *   never counts it (store_unavailable, the claim's segment never handed out though the row moved), and a wait that
 *   nobody cancels is bounded from the client side.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedRange } from '../../lib/segment/semantics';
import type { Allocation } from '../../lib/segment/segmentSource';
import { PostgresStore } from '../../lib/store/postgres';
import { SyncCommitUnacknowledged } from '../../lib/store/postgres/errors';
import { PostgresServer, psql } from '../../tools/harness';
import { freshPgDatabase, pgTestStore, waitFor, within } from '../support/context';

async function client(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  return c;
}

/** Whether a session of this database waits on a lock (the claim behind the switch's row lock). */
async function someoneWaitsOnALock(c: pg.Client): Promise<true | undefined> {
  const { rowCount } = await c.query(
    "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
  );
  return rowCount !== null && rowCount > 0 ? true : undefined;
}

describe('postgres: a Leaf table made by hand', () => {
  it('is used as it is: claims continue from its rows, its column types stay', async () => {
    const db = await freshPgDatabase();
    try {
      const c = await client(db.url);
      await c.query(`CREATE TABLE leaf_alloc (
        biz_tag varchar(128) NOT NULL DEFAULT '', max_id bigint NOT NULL DEFAULT 1, step integer NOT NULL,
        description varchar(256) DEFAULT NULL, update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (biz_tag))`);
      await c.query(
        "INSERT INTO leaf_alloc (biz_tag, max_id, step, description) VALUES ('leaf-segment-test', 1, 2000, 'Test leaf Segment Mode Get Id'), ('big', 9007199254740993, 100, NULL)",
      );
      const store = await PostgresStore.open({ url: db.url });
      try {
        expect(await store.tags.allocate('leaf-segment-test')).toEqual({
          bizTag: 'leaf-segment-test',
          maxId: 2001,
          step: 2000,
          semantics: 'leaf-ts',
        });
        expect(await store.tags.allocate('big')).toEqual({
          bizTag: 'big',
          maxId: 9007199254741093n,
          step: 100,
          semantics: 'leaf-ts',
        });
        const { rows } = await c.query<{ column_name: string; data_type: string; len: number | null }>(
          "SELECT column_name, data_type, character_maximum_length AS len FROM information_schema.columns WHERE table_name = 'leaf_alloc' ORDER BY ordinal_position",
        );
        expect(rows.map((r) => [r.column_name, r.data_type, r.len])).toEqual([
          ['biz_tag', 'character varying', 128],
          ['max_id', 'bigint', null],
          ['step', 'integer', null],
          ['description', 'character varying', 256],
          ['update_time', 'timestamp without time zone', null],
        ]);
      } finally {
        await store.close();
        await c.end();
      }
    } finally {
      await db.drop();
    }
  });
});

describe('postgres: the semantics a claim reads', () => {
  let t: Awaited<ReturnType<typeof pgTestStore>>;
  beforeAll(async () => {
    t = await pgTestStore();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a claim that waited on a switch reads the switch, not the semantics of its starting snapshot (one statement would)', async () => {
    await t.store.tags.createTag({ bizTag: 'w', step: 10, maxId: 100 });
    const sw = await client(t.url);
    const watch = await client(t.url);
    try {
      // A tag switch leaf-ts → leaf held open: the row bumped by one (IDs up to 100 may be served), its semantics row written.
      await sw.query('BEGIN');
      await sw.query("UPDATE leaf_alloc SET max_id = max_id + 1 WHERE biz_tag = 'w'");
      await sw.query("INSERT INTO leaf_semantics (biz_tag, semantics) VALUES ('w', 'leaf')");
      const claim = t.store.tags.allocate('w');
      await waitFor(10_000, () => someoneWaitsOnALock(watch), 'the claim waiting on the row lock');
      await sw.query('COMMIT');
      // leaf after the bump: serves 101…110, above every leaf-ts ID.
      expect(await within(10_000, claim)).toEqual({ bizTag: 'w', maxId: 111, step: 10, semantics: 'leaf' });

      // The same race against ONE statement reading the semantics in a subquery: it gets the switch's row (leaf →
      // leaf-ts here) but the semantics of its starting snapshot — the old ones. Why the claim is two statements.
      await sw.query('BEGIN');
      await sw.query("UPDATE leaf_alloc SET max_id = max_id + 0 WHERE biz_tag = 'w'");
      await sw.query("DELETE FROM leaf_semantics WHERE biz_tag = 'w'");
      const single = watch.query<{ semantics: string }>(
        "UPDATE leaf_alloc SET max_id = max_id + 10 WHERE biz_tag = 'w' RETURNING COALESCE((SELECT semantics FROM leaf_semantics WHERE biz_tag = 'w'), 'leaf-ts') AS semantics",
      );
      const probe = await client(t.url);
      await waitFor(10_000, () => someoneWaitsOnALock(probe), 'the single statement waiting on the row lock');
      await probe.end();
      await sw.query('COMMIT');
      expect((await within(10_000, single)).rows[0]?.semantics).toBe('leaf'); // stale: the switch made it leaf-ts
      expect(await t.store.tags.allocate('w')).toMatchObject({ maxId: 131, semantics: 'leaf-ts' });
    } finally {
      await sw.end();
      await watch.end();
    }
  });

  it('the fleet default flipped six times while three stores claim one row: each claim owns its range under its own semantics, none overlap', async () => {
    const others = await Promise.all([1, 2].map(() => PostgresStore.open({ url: t.url, connectionLimit: 4 })));
    const stores = [t.store, ...others];
    try {
      await t.store.tags.createTag({ bizTag: 'race', step: 5, maxId: 1_000 });
      let stop = false;
      const claims: Allocation[] = [];
      const claiming = stores.map(async (s) => {
        while (!stop) {
          claims.push(await s.tags.allocate('race'));
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      });
      for (const [i, to] of (['leaf', 'leaf-ts', 'leaf', 'leaf-ts', 'leaf', 'leaf-ts'] as const).entries()) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect((await stores[i % 3]!.semantics.setDefaultSemantics(to)).after).toBe(to);
      }
      stop = true;
      await Promise.all(claiming);
      const ranges = claims
        .map((a) => claimedRange(Number(a.maxId), a.step, a.semantics))
        .sort((a, b) => a.first - b.first);
      for (let k = 1; k < ranges.length; k++)
        expect(ranges[k]!.first, `range ${k}`).toBeGreaterThan(ranges[k - 1]!.last);
      const leaf = claims.filter((a) => a.semantics === 'leaf').length;
      expect(leaf).toBeGreaterThan(0);
      expect(leaf).toBeLessThan(claims.length);
    } finally {
      for (const s of others) await s.close();
    }
  });
});

describe('postgres: a primary with a standby, then with a synchronous standby that never answers', () => {
  let primary: PostgresServer;
  let standby: PostgresServer;
  let url: string;
  let standbyUrl: string;
  beforeAll(async () => {
    primary = await PostgresServer.create();
    url = await primary.createAppUser('leaf_sync', 'leaf');
    standby = await PostgresServer.standbyOf(primary);
    standbyUrl = url.replace(`:${primary.port}/`, `:${standby.port}/`);
  });
  afterAll(async () => {
    await standby?.destroy();
    await primary?.destroy();
  });

  it('a standby alone in the URL is store_unavailable, saying it is a read-only standby', async () => {
    const error = await within(
      15_000,
      PostgresStore.open({ url: standbyUrl, connectTimeoutMs: 1_000 }).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(error).toMatchObject({ code: 'store_unavailable' });
    expect(String((error as Error).message)).toMatch(/read-only standby/);
  });

  it('the standby listed first: every write goes to the primary behind it; the probe names each role', async () => {
    const hosts = `127.0.0.1:${standby.port},127.0.0.1:${primary.port}`;
    const store = await PostgresStore.open({
      url: url.replace(`127.0.0.1:${primary.port}`, hosts),
      connectTimeoutMs: 1_000,
    });
    try {
      await store.tags.createTag({ bizTag: 'ha', step: 10 });
      expect(await store.tags.allocate('ha')).toMatchObject({ maxId: 11 });
      expect(
        (await psql(primary.superuserConninfo('leaf_sync'), "SELECT max_id FROM leaf_alloc WHERE biz_tag = 'ha'"))[0],
      ).toEqual(['11']);
      expect((await store.hosts()).map((h) => [h.host, h.reachable, h.postgres?.role])).toEqual([
        [`127.0.0.1:${standby.port}`, true, 'standby'],
        [`127.0.0.1:${primary.port}`, true, 'primary'],
      ]);
    } finally {
      await store.close();
    }
  });

  it('a commit whose sync-standby wait was cancelled (success with a WARNING) is never counted: no segment, store_unavailable', async () => {
    const store = await PostgresStore.open({ url, queryTimeoutMs: 3_000 });
    await store.tags.createTag({ bizTag: 'sync', step: 10 });
    // From now on every commit waits for a synchronous standby that does not exist.
    await psql(primary.superuserConninfo(), [
      "ALTER SYSTEM SET synchronous_standby_names = 'ghost'",
      'SELECT pg_reload_conf()',
    ]);
    // pg_reload_conf() returns before the postmaster has re-read the file and signalled the backends: a claim sent at
    // once may still commit without the wait. A new connection shows the setting once the postmaster has it (and has
    // passed the signal on to every backend, the pool's included).
    for (const until = performance.now() + 10_000; ;) {
      const shown = await psql(primary.superuserConninfo(), 'SHOW synchronous_standby_names');
      if (shown[0]?.[0] === 'ghost') break;
      if (performance.now() > until) throw new Error('synchronous_standby_names never showed ghost');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    let cancelling = true;
    const canceller = (async () => {
      let cancelled = 0;
      while (cancelling) {
        const rows = await psql(
          primary.superuserConninfo(),
          "SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity WHERE wait_event = 'SyncRep'",
        );
        cancelled += Number(rows[0]?.[0] ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      return cancelled;
    })();
    try {
      const error = await within(
        20_000,
        store.tags.allocate('sync').then(
          () => null,
          (e: unknown) => e,
        ),
      );
      cancelling = false;
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect((error as Error).cause).toBeInstanceOf(SyncCommitUnacknowledged);
      expect(await canceller).toBeGreaterThan(0);
      // The primary did commit (alone): the row moved, yet no claim was answered — its IDs are a gap, never served.
      const answer = await psql(
        primary.superuserConninfo('leaf_sync'),
        "SELECT max_id FROM leaf_alloc WHERE biz_tag = 'sync'",
      );
      expect(Number(answer[0]?.[0])).toBeGreaterThanOrEqual(11);
      expect(store.retries.lostConnection).toBeGreaterThan(0);
    } finally {
      cancelling = false;
      await canceller.catch(() => 0);
      await store.close();
    }
  });

  it('a wait that nobody cancels is bounded from the client side (statement_timeout does not bound it)', async () => {
    const store = await PostgresStore.open({ url, queryTimeoutMs: 1_000 });
    try {
      const started = performance.now();
      const error = await within(
        10_000,
        store.tags.allocate('sync').then(
          () => null,
          (e: unknown) => e,
        ),
      );
      expect(error).toMatchObject({ code: 'store_unavailable' });
      expect(performance.now() - started).toBeLessThan(4_000);
    } finally {
      await store.close();
    }
  });
});
