/**
 * Several hosts in DATABASE_URL, on the throwaway MariaDB: a dead first host is skipped at open (migrations on the
 * first reachable host) and for claims; a first host that dies mid-run (a TCP proxy in front of the live server,
 * closed) is left for the next one with bounded waits, and no two claims ever overlap; per-host health names the
 * dead host unreachable and the live one reachable with its latency. The Galera-only paths (1213 certification
 * failures, 1047 on a non-primary node) are proven on scripted errors in test/unit/mysqlErrors.test.ts.
 */
import net from 'node:net';
import mysql from 'mysql2/promise';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateMysql } from '../../lib/store/mysql/migrate';
import { migrationsFolder } from '../../lib/store/migrations';
import { MysqlStore } from '../../lib/store/mysql';
import { parseMysqlUrl } from '../../lib/store/mysql/url';
import { ChaosProxy } from '../../tools/chaos/proxy';
import { type TestDatabase, freePort } from '../../tools/harness';
import { freshMysqlDatabase, mysqlUrl, waitFor, within } from '../support/context';
import { defined } from '../support/defined';
import type { Id } from '../../lib/segment/id';
import { createDatabase } from '../../tools/harness';

/**
 * Liveness bound for claims while a host is dead or cut: generous, so a loaded machine cannot break it. Where the
 * claims went is judged from the proxies' connection counts, not from how long they took.
 */
const LIVENESS_MS = 30_000;

let db: TestDatabase;
let livePort: number;

/** The test database's URL with another host list. */
function urlWith(hosts: number[]): string {
  const t = parseMysqlUrl(db.url);
  const list = hosts.map((p) => `127.0.0.1:${p}`).join(',');
  return `mysql://${encodeURIComponent(t.user)}:${encodeURIComponent(t.password)}@${list}/${t.database}`;
}

/** A port where nothing listens (bound and closed at once), so a connect is refused. */
async function deadPort(): Promise<number> {
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    const probe = net.connect({ host: '127.0.0.1', port });
    probe.once('connect', () => reject(new Error(`port ${port} is not dead`)));
    probe.once('error', () => resolve());
  });
  return port;
}

/** A store over two hosts, each a TCP proxy in front of the same live server, so either can be cut or closed. */
async function behindTwoProxies(
  queryTimeoutMs: number,
): Promise<{ first: ChaosProxy; second: ChaosProxy; store: MysqlStore }> {
  const first = new ChaosProxy('first', livePort);
  const second = new ChaosProxy('second', livePort);
  await first.listen();
  await second.listen();
  const store = await MysqlStore.open({
    url: urlWith([first.port, second.port]),
    connectTimeoutMs: 1_000,
    queryTimeoutMs,
  });
  return { first, second, store };
}

/** Asserts that claimed segments never overlap. */
function expectDisjoint(segments: Array<{ maxId: Id; step: number }>): void {
  const sorted = [...segments].sort((a, b) => Number(a.maxId) - Number(b.maxId));
  let previous: Id | undefined;
  for (const segment of sorted) {
    if (previous !== undefined) expect(Number(segment.maxId) - segment.step).toBeGreaterThanOrEqual(previous);
    previous = segment.maxId;
  }
}

beforeAll(async () => {
  db = await freshMysqlDatabase();
  livePort = defined(parseMysqlUrl(db.url).hosts[0], 'a host in the test database URL').port;
});

afterAll(async () => {
  await db?.drop();
});

describe('DATABASE_URL with several hosts', () => {
  it('a dead first host: opens, migrates and claims through the live one; health tells them apart', async () => {
    const dead = await deadPort();
    const store = await within(
      LIVENESS_MS,
      MysqlStore.open({ url: urlWith([dead, livePort]), connectTimeoutMs: 1_000 }),
      'open',
    );
    try {
      await store.tags.createTag({ bizTag: 'dead-first', step: 100 });
      const segments: Array<{ maxId: Id; step: number }> = [];
      await within(
        LIVENESS_MS,
        (async () => {
          for (let i = 0; i < 20; i++) segments.push(await store.tags.allocate('dead-first'));
        })(),
        'claims with the first host dead',
      );
      expect(segments.map((s) => s.maxId)).toEqual(Array.from({ length: 20 }, (_, i) => 1 + 100 * (i + 1)));

      const hosts = await within(LIVENESS_MS, store.hosts(5_000), 'hosts');
      expect(hosts).toHaveLength(2);
      expect(hosts[0]).toMatchObject({ host: `127.0.0.1:${dead}`, reachable: false, error: 'ECONNREFUSED' });
      expect(hosts[1]).toMatchObject({ host: `127.0.0.1:${livePort}`, reachable: true });
      expect(hosts[1]?.latencyMs).toBeGreaterThan(0);
      // A plain MariaDB is no Galera node.
      expect(hosts[1]).not.toHaveProperty('galera');
    } finally {
      await store.close();
    }
  });

  it('every host dead: open fails within a bounded time', async () => {
    const error = await within(
      LIVENESS_MS,
      MysqlStore.open({ url: urlWith([await deadPort(), await deadPort()]), connectTimeoutMs: 1_000 }).then(
        () => null,
        (e: unknown) => e,
      ),
      'open with every host dead',
    );
    expect(error).not.toBeNull();
  });

  it('the first host dies mid-run: claims go on through the second with bounded waits and never overlap', async () => {
    const { first, second, store } = await behindTwoProxies(2_000);
    try {
      await store.tags.createTag({ bizTag: 'mid-run', step: 10 });
      const segments = [];
      for (let i = 0; i < 10; i++) segments.push(await store.tags.allocate('mid-run'));
      // ORDER: while the first host answers, everything goes there.
      expect(first.stats.connections).toBeGreaterThan(0);
      expect(second.stats.connections).toBe(0);

      // Claims in flight while the first host goes away: cut its connections and refuse new ones.
      const inFlight = Array.from({ length: 8 }, () => store.tags.allocate('mid-run'));
      await first.close();
      const racing = await within(LIVENESS_MS, Promise.allSettled(inFlight), 'claims in flight during the cut');
      for (const r of racing) {
        // A claim in flight may fail (its outcome unknown and the retry out of budget) but never hangs or overlaps.
        if (r.status === 'fulfilled') segments.push(r.value);
        else expect(r.reason).toMatchObject({ code: 'store_unavailable' });
      }

      await within(
        LIVENESS_MS,
        (async () => {
          for (let i = 0; i < 20; i++) segments.push(await store.tags.allocate('mid-run'));
        })(),
        'claims after the cut',
      );
      expect(second.stats.connections).toBeGreaterThan(0);
      expectDisjoint(segments);
      // Every later claim lies above every earlier one: the row only grows.
      const last = segments.slice(-20).map((s) => Number(s.maxId));
      expect(last).toEqual([...last].sort((a, b) => a - b));

      const hosts = await store.hosts(5_000);
      expect(hosts.map((h) => [h.host, h.reachable])).toEqual([
        [`127.0.0.1:${first.port}`, false],
        [`127.0.0.1:${second.port}`, true],
      ]);
      // Admin operations and reads take the same way.
      expect((await store.tags.updateTag('mid-run', { description: 'after the cut' })).description).toBe(
        'after the cut',
      );
      await store.ping();
    } finally {
      await within(5_000, store.close(), 'store.close').catch(() => {});
      await second.close();
    }
  });

  it('a connection lost after the claim was sent: claimed again on the other host, the lost segment a gap, that host set aside', async () => {
    const { first, second, store } = await behindTwoProxies(3_000);
    try {
      await store.tags.createTag({ bizTag: 'unknown', step: 10 });
      await store.tags.allocate('unknown'); // warm: a pooled connection to the first host
      expect(second.stats.connections).toBe(0);
      // The server's answers are held: the UPDATE reaches MariaDB and commits, its OK packet is cut off. The cut comes
      // once the row shows the commit (read on a connection of its own), however long a loaded machine took.
      first.setLatency({ minMs: 120_000, maxMs: 120_000 });
      // An explicit step: the UPDATE is the first statement sent (without one, a SELECT of the step goes first).
      const claims = Array.from({ length: 3 }, () => store.tags.allocate('unknown', 10));
      const direct = await mysql.createConnection({ uri: db.url });
      try {
        await waitFor(
          LIVENESS_MS,
          async () => {
            const [rows] = await direct.query("SELECT max_id AS maxId FROM leaf_alloc WHERE biz_tag = 'unknown'");
            return Number((rows as Array<{ maxId: number }>)[0]?.maxId) > 11 ? true : undefined;
          },
          'a claim committed behind the held answers',
          20,
        );
      } finally {
        await direct.end();
      }
      first.setLatency(null);
      expect(first.cutAll()).toBeGreaterThan(0);
      const got = await within(LIVENESS_MS, Promise.all(claims), 'claims retried after the cut');
      // The first host still accepts connections, yet the retries went to the other one.
      expect(second.stats.connections).toBeGreaterThan(0);
      const all = [{ maxId: 11, step: 10 }, ...got];
      expectDisjoint(all);
      // At least the claim on the warm connection had committed before its answer was cut: its segment is a gap,
      // never handed out — the row counts more segments than we received.
      const row = await store.tags.getTag('unknown');
      const claimedSegments = (Number(row!.maxId) - 1) / 10;
      expect(claimedSegments).toBeGreaterThan(all.length);
      expect(Math.max(...got.map((s) => Number(s.maxId)))).toBe(row!.maxId);
      // Set aside: the next claims keep to the second host for a while, though the first answers again.
      const before = first.stats.connections;
      for (let i = 0; i < 5; i++) await store.tags.allocate('unknown');
      expect(first.stats.connections).toBe(before);
    } finally {
      await within(5_000, store.close(), 'store.close').catch(() => {});
      await first.close();
      await second.close();
    }
  });

  it('a single-host URL works as before; its health is one reachable host', async () => {
    const store = await MysqlStore.open({ url: db.url });
    try {
      await store.tags.createTag({ bizTag: 'single', step: 5 });
      expect(await store.tags.allocate('single')).toEqual({
        bizTag: 'single',
        maxId: 6,
        step: 5,
        semantics: 'leaf-ts',
      });
      const [host] = await store.hosts();
      expect(host).toMatchObject({ host: `127.0.0.1:${livePort}`, reachable: true });
    } finally {
      await store.close();
    }
  });
});

describe('the migration lock Galera needs (GET_LOCK there is node-local, or refused): a lease row', () => {
  it('4 connections migrating a fresh database at once apply each migration exactly once', async () => {
    const fresh = await createDatabase(mysqlUrl());
    const connect = () => mysql.createConnection({ uri: fresh.url });
    const conns = await Promise.all([connect(), connect(), connect(), connect()]);
    try {
      const applied = await within(
        30_000,
        Promise.all(conns.map((c) => migrateMysql(c, undefined, { forceTableLock: true, lockTimeoutSeconds: 20 }))),
        'migrations',
      );
      const expected = readMigrationFiles({ migrationsFolder: migrationsFolder('mysql') }).length;
      expect(applied.reduce((a, b) => a + b, 0)).toBe(expected);
      const [rows] = await conns[0].query(
        'SELECT COUNT(*) AS n, COUNT(DISTINCT hash) AS d FROM `__drizzle_migrations`',
      );
      expect(rows).toEqual([{ n: expected, d: expected }]);
      // Released: nothing holds the row afterwards.
      const [lock] = await conns[0].query('SELECT COUNT(*) AS n FROM `__leaf_migration_lock`');
      expect(lock).toEqual([{ n: 0 }]);
      // A holder that died (its lease in the past) does not block the next start.
      await conns[0].query("INSERT INTO `__leaf_migration_lock` VALUES (1, 'dead-node', 0)");
      expect(
        await within(
          5_000,
          migrateMysql(conns[1], undefined, { forceTableLock: true, lockTimeoutSeconds: 3 }),
          'migration after a dead holder',
        ),
      ).toBe(0);
    } finally {
      await Promise.all(conns.map((c) => c.end()));
      await fresh.drop();
    }
  });
});
