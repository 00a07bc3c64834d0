/**
 * Range leases across a fleet (issue 10, part 1): three real servers (server.ts, production build) on one database
 * serve range leases of random sizes (1..100,000) concurrently with single IDs and small batches, until a few million
 * IDs went out. Checked compactly — every answer as runs `[start, end]`, sorted — that no two runs overlap, that every
 * lease holds exactly its count, and that every ID lies below the row's final max_id. SQLite file in `leaf-ts`
 * semantics; MariaDB (the integration globalSetup's) with the servers set to `leaf` semantics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeServer, rng, startNodeServer } from '../../tools/harness';
import { takeIds, takeLease } from '../support/clientIds';
import { type TempDir, tempDir, within } from '../support/context';
import { serverDialects } from '../support/dialects';

const TAG = 'leases';
const DB_STEP = 1_000;
const SERVERS = 3;
/** Clients per server, each looping lease / single / batch calls. */
const CLIENTS_PER_SERVER = 4;
const TARGET_IDS = 4_000_000;
const MAX_LEASE = 100_000;
const RUN_BOUND_MS = 90_000;

const dialects = serverDialects('fleet.db');

let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir('leaf-it-ranges-');
});
afterAll(async () => {
  await dialects.drop();
  tmp?.remove();
});

describe.each(dialects.all)('range leases from $name', (dialect) => {
  it(`${SERVERS} servers serve leases of 1..${MAX_LEASE} beside single IDs: no overlap, each lease exactly its count`, async (ctx) => {
    if (dialect.skip?.()) ctx.skip();
    const { store, serverEnv, close } = await dialect.open(tmp);
    const servers: NodeServer[] = [];
    try {
      await store.tags.createTag({ bizTag: TAG, step: DB_STEP });
      servers.push(
        ...(await Promise.all(
          Array.from({ length: SERVERS }, (_, i) =>
            startNodeServer({ env: serverEnv({ LEAF_NODE_ID: `ranges-${i}` }), timeoutMs: 60_000 }),
          ),
        )),
      );

      // Runs as Float64 pairs: compact for millions of IDs in many answers.
      let runs = new Float64Array(1 << 16);
      let runCount = 0;
      const addRun = (start: number, end: number) => {
        if (runCount * 2 === runs.length) {
          const grown = new Float64Array(runs.length * 2);
          grown.set(runs);
          runs = grown;
        }
        runs[runCount * 2] = start;
        runs[runCount * 2 + 1] = end;
        runCount++;
      };
      let issued = 0;
      const calls = { lease: 0, single: 0, batch: 0 };
      const seed = (Date.now() ^ (process.pid << 8)) >>> 0;

      const client = async (server: NodeServer, index: number) => {
        const random = rng(seed + index);
        while (issued < TARGET_IDS) {
          const pick = random();
          if (pick < 0.3) {
            const n = 1 + Math.floor(random() * MAX_LEASE);
            const lease = await takeLease(`${server.url}/api/id/segment/${TAG}/range?count=${n}`);
            expect(lease.count).toBe(n);
            let total = 0;
            for (const { start, end } of lease.ranges) {
              const s = Number(start);
              const e = Number(end);
              expect(BigInt(s), 'a run start below 2^53').toBe(start);
              expect(e).toBeGreaterThanOrEqual(s);
              addRun(s, e);
              total += e - s + 1;
            }
            expect(total, `lease of ${n}`).toBe(n);
            issued += n;
            calls.lease++;
          } else if (pick < 0.9) {
            for (const id of await takeIds(`${server.url}/api/id/segment/${TAG}`)) addRun(Number(id), Number(id));
            issued++;
            calls.single++;
          } else {
            for (const id of await takeIds(`${server.url}/api/id/segment/${TAG}?count=50`))
              addRun(Number(id), Number(id));
            issued += 50;
            calls.batch++;
          }
        }
      };
      await within(
        RUN_BOUND_MS,
        Promise.all(
          servers.flatMap((server, s) =>
            Array.from({ length: CLIENTS_PER_SERVER }, (_, c) => client(server, s * CLIENTS_PER_SERVER + c)),
          ),
        ),
        `the run to ${TARGET_IDS} IDs (seed ${seed})`,
      );

      // Sort the runs by start and walk them once: each must begin above the end of the one before.
      const order = Array.from({ length: runCount }, (_, i) => i).sort(
        (a, b) => (runs[a * 2] as number) - (runs[b * 2] as number),
      );
      let covered = 0;
      let previousEnd = -Infinity;
      let overlaps = 0;
      for (const i of order) {
        const start = runs[i * 2] as number;
        const end = runs[i * 2 + 1] as number;
        if (start <= previousEnd) overlaps++;
        previousEnd = Math.max(previousEnd, end);
        covered += end - start + 1;
      }
      expect(overlaps, `overlapping runs (seed ${seed})`).toBe(0);
      expect(covered).toBe(issued);
      expect(calls.lease).toBeGreaterThan(20);
      expect(calls.single).toBeGreaterThan(100);
      const finalMax = Number((await store.tags.getTag(TAG))!.maxId);
      expect(previousEnd).toBeLessThanOrEqual(dialect.semantics === 'leaf' ? finalMax - 1 : finalMax);
      expect(issued).toBeGreaterThanOrEqual(TARGET_IDS);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await close();
    }
  });
});
