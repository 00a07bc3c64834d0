/**
 * Formatted IDs across real server.ts processes (production build) on one database, SQLite file and MariaDB:
 * three nodes hammer one daily formatted tag at once — no ID twice, every ID of today's period, numbers from 1 —
 * and then one node is stopped with kill -9 and one gracefully (LEAF_GIVE_BACK on, the default), each followed by a
 * new node: the sequence numbers skipped across each restart are counted and printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import type { AuditStamp } from '../../lib/audit';
import type { LeafStore } from '../../lib/store/leafStore';
import { type NodeServer, type TestDatabase, startNodeServer, stopChild } from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, mariadbAvailable, tempDir } from '../support/context';
import { takeIdStrings } from '../support/clientIds';

const STEP = 1_000;
/** Past the 10% preload point: a stopped node holds a pending segment too. */
const SERVED = 150;
const stamp: AuditStamp = { actor: 'token:test', address: '127.0.0.1', nodeId: 'test', at: Date.now() };

interface Dialect {
  name: string;
  skip?: () => boolean;
  open(tmp: TempDir): Promise<{ store: LeafStore; env: Record<string, string>; close(): Promise<void> }>;
}

let database: TestDatabase | undefined;
let pgDatabase: TestDatabase | undefined;
const dialects: Dialect[] = [
  {
    name: 'sqlite file',
    async open(tmp) {
      const file = tmp.file('formats.db');
      const store = new SqliteStore({ file });
      return { store, env: { LEAF_SQLITE_FILE: file }, close: async () => store.close() };
    },
  },
  {
    name: 'mariadb',
    skip: () => !mariadbAvailable(),
    async open() {
      database = await freshMysqlDatabase();
      const store = await MysqlStore.open({ url: database.url });
      return { store, env: { DATABASE_URL: database.url }, close: () => store.close() };
    },
  },
  {
    name: 'postgres',
    async open() {
      pgDatabase = await freshPgDatabase();
      const store = await PostgresStore.open({ url: pgDatabase.url });
      return { store, env: { DATABASE_URL: pgDatabase.url }, close: () => store.close() };
    },
  },
];

let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir('leaf-it-formats-mp-');
});
afterAll(async () => {
  await database?.drop();
  await pgDatabase?.drop();
  tmp?.remove();
});

/** `n` formatted IDs of `tag`: batches of 50 while at least 50 are wanted, then singles. */
async function take(server: NodeServer, tag: string, n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) {
    const batch = n - out.length >= 50;
    out.push(...(await takeIdStrings(`${server.url}/api/id/formatted/${tag}${batch ? '?count=50' : ''}`)));
  }
  return out;
}

const seqOf = (id: string): number => Number(id.slice(id.lastIndexOf('-') + 1));

describe.each(dialects)('formatted IDs from several processes, $name', (dialect) => {
  it('three nodes hammering one tag never issue an ID twice; restarts skip what the figures say', async (ctx) => {
    if (dialect.skip?.()) ctx.skip();
    const { store, env, close } = await dialect.open(tmp);
    const started: NodeServer[] = [];
    const start = async (name: string) => {
      const base = { ...process.env, NODE_ENV: 'production', LEAF_LOG_LEVEL: 'warn', LEAF_SNOWFLAKE: 'off', ...env };
      const server = await startNodeServer({
        env: { ...base, LEAF_NODE_ID: name } as NodeJS.ProcessEnv,
        timeoutMs: 60_000,
      });
      started.push(server);
      return server;
    };
    try {
      await store.formats.createFormat(
        {
          bizTag: 'hammer',
          pattern: 'H-{yyyyMMdd}-{seq:8}',
          resetPeriod: 'daily',
          timeZone: 'Asia/Shanghai',
          step: 50,
        },
        stamp,
      );
      await store.formats.createFormat(
        { bizTag: 'restart', pattern: 'R-{seq:9}', resetPeriod: 'never', timeZone: 'UTC', step: STEP },
        stamp,
      );
      const nodes = await Promise.all([start('fm-a'), start('fm-b'), start('fm-c')]);

      // Each node: 4 clients at once, 30 rounds of a batch of 20 and 3 singles.
      const issued = (
        await Promise.all(
          nodes.flatMap((node) =>
            Array.from({ length: 4 }, async () => {
              const mine: string[] = [];
              for (let round = 0; round < 30; round++) {
                const answers = await Promise.all([
                  takeIdStrings(`${node.url}/api/id/formatted/hammer?count=20`),
                  ...Array.from({ length: 3 }, () => takeIdStrings(`${node.url}/api/id/formatted/hammer`)),
                ]);
                mine.push(...answers.flat());
              }
              return mine;
            }),
          ),
        )
      ).flat();
      expect(issued).toHaveLength(3 * 4 * 30 * 23);
      expect(new Set(issued).size, 'a formatted ID issued twice').toBe(issued.length);
      for (const id of issued) expect(id).toMatch(/^H-\d{8}-\d{8}$/);
      const days = [...new Set(issued.map((id) => id.slice(2, 10)))];
      const periods = await store.formats.listFormatPeriods('hammer');
      // (A run across Shanghai's midnight would see two days; each counted from 1 on its own.)
      for (const day of days) {
        const seqs = issued.filter((id) => id.slice(2, 10) === day).map(seqOf);
        expect(Math.min(...seqs)).toBeLessThanOrEqual(50 * 3 * 2);
        expect(Math.max(...seqs)).toBeLessThanOrEqual(periods.find((p) => p.periodKey === day)!.maxId);
      }

      // Restarts: kill -9 of a node that served SERVED, a new node; a graceful stop of that one, another new node.
      const [a, b, c] = nodes as [NodeServer, NodeServer, NodeServer];
      await Promise.all([b.stop(), c.stop()]);
      const beforeKill = await take(a, 'restart', SERVED);
      await stopChild(a.child, 0, { signal: 'SIGKILL' });
      const afterKillNode = await start('fm-d');
      const afterKill = await take(afterKillNode, 'restart', SERVED);
      await afterKillNode.stop();
      const afterGraceful = await take(await start('fm-e'), 'restart', 20);
      const all = [...beforeKill, ...afterKill, ...afterGraceful];
      expect(new Set(all).size, 'a formatted ID issued twice across restarts').toBe(all.length);
      const skippedKill = seqOf(afterKill[0]!) - seqOf(beforeKill.at(-1)!) - 1;
      const skippedGraceful = seqOf(afterGraceful[0]!) - seqOf(afterKill.at(-1)!) - 1;
      expect(skippedKill).toBeGreaterThanOrEqual(STEP - SERVED);
      expect(skippedGraceful, 'a graceful stop gives back its unused numbers').toBe(0);
      process.stdout.write(
        `[formats ${dialect.name}] ${issued.length} IDs from 3 nodes, none twice; sequence numbers skipped per restart after ${SERVED} served, step ${STEP}: ` +
          `kill -9 ${skippedKill}, graceful (give-back) ${skippedGraceful}\n`,
      );
    } finally {
      await Promise.all(started.map((s) => s.stop()));
      await close();
    }
  });
});
