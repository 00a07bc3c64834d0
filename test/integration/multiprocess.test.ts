/**
 * Several real processes, each with its own store and SegmentEngine, hammer one tag in a shared database until
 * together they issued 1,000,000 IDs. Checked: no ID twice across processes, each process's IDs strictly
 * increasing, every ID inside [2, final max_id] and inside a segment claimed by that very process, the claimed
 * segments tile (initial max_id, final max_id] exactly, and issued + unissued remainder = max_id growth.
 */
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, tempDir } from '../support/context';
import type { TestDatabase } from '../../tools/harness';
import { type WorkerHandle, killAllWorkers, startWorker } from '../support/procs';

const PROCESSES = 4;
const TOTAL_IDS = 1_000_000;
const DB_STEP = 200;
const TAG = 'hammer';
/** Wall-clock bound of one dialect's run, processes' start-up included. */
const RUN_BOUND_MS = 60_000;

interface Done {
  type: 'done';
  issued: number;
  unissued: number;
  allocations: Array<[number, number]>;
  failedAllocations: number;
  restarts: number;
  nextCalls: number;
  takeCalls: number;
  ms: number;
}

function readIds(file: string): Float64Array {
  const buf = fs.readFileSync(file);
  if (buf.byteLength % 8 !== 0) throw new Error(`${file}: ${buf.byteLength} bytes is not a whole number of Float64s`);
  // Copy when the Buffer is not 8-byte aligned inside its ArrayBuffer.
  if (buf.byteOffset % 8 === 0) return new Float64Array(buf.buffer, buf.byteOffset, buf.byteLength / 8);
  return new Float64Array(new Uint8Array(buf).buffer);
}

let tmp: TempDir;
let database: TestDatabase | undefined;
let pgDatabase: TestDatabase | undefined;

beforeAll(async () => {
  tmp = tempDir('leaf-it-multi-');
});
afterEach(async () => {
  await killAllWorkers();
});
afterAll(async () => {
  await killAllWorkers();
  await database?.drop();
  await pgDatabase?.drop();
  tmp?.remove();
});

interface Dialect {
  name: 'mysql' | 'postgres' | 'sqlite';
  /** Opens the store the parent uses for setup and the final reading, plus what the workers need to open theirs. */
  prepare(): Promise<{ store: MysqlStore | PostgresStore | SqliteStore; target: { url?: string; file?: string } }>;
}

const dialects: Dialect[] = [
  {
    name: 'mysql',
    async prepare() {
      database = await freshMysqlDatabase();
      return { store: await MysqlStore.open({ url: database.url }), target: { url: database.url } };
    },
  },
  {
    name: 'postgres',
    async prepare() {
      pgDatabase = await freshPgDatabase();
      return { store: await PostgresStore.open({ url: pgDatabase.url }), target: { url: pgDatabase.url } };
    },
  },
  {
    name: 'sqlite',
    async prepare() {
      const file = tmp.file('shared.db');
      return { store: new SqliteStore({ file }), target: { file } };
    },
  },
];

describe.each(dialects)('$name store: processes share one tag', (dialect) => {
  it(`${PROCESSES} processes issue ${TOTAL_IDS} IDs together: disjoint, increasing, fully accounted`, async () => {
    const t0 = Date.now();
    const { store, target } = await dialect.prepare();
    let stopClock: ReturnType<typeof setTimeout> | undefined;
    try {
      await store.tags.createTag({ bizTag: TAG, step: DB_STEP, description: 'multi-process test' });
      const initialMax = Number((await store.tags.getTag(TAG))!.maxId);
      expect(initialMax).toBe(1);

      const quota = TOTAL_IDS / PROCESSES;
      const seed = (Date.now() ^ (process.pid << 8)) >>> 0;
      const workers: WorkerHandle[] = [];
      for (let i = 0; i < PROCESSES; i++) {
        const w = startWorker('hammer.mts', `${dialect.name}-hammer-${i}`, {
          LEAF_WORKER_MAX_MS: String(RUN_BOUND_MS + 10_000),
        });
        workers.push(w);
        w.send({
          type: 'config',
          dialect: dialect.name,
          ...target,
          tag: TAG,
          quota,
          outFile: tmp.file(`${dialect.name}-${i}.f64`),
          seed: seed + i,
          nextRatio: 0.9,
          takeMax: 1000,
          restartMin: 20_000,
          restartMax: 80_000,
        });
      }
      // A hard wall-clock bound on the whole run: kill the workers, fail with a clear message.
      const bound = new Promise<never>((_, reject) => {
        stopClock = setTimeout(() => {
          void killAllWorkers();
          reject(new Error(`${dialect.name} run exceeded ${RUN_BOUND_MS} ms`));
        }, RUN_BOUND_MS);
      });
      await Promise.race([Promise.all(workers.map((w) => w.next('ready', 30_000))), bound]);
      const at = Date.now() + 150;
      for (const w of workers) w.send({ type: 'go', at });
      const results = (await Promise.race([
        Promise.all(workers.map((w) => w.next<Done>('done', RUN_BOUND_MS))),
        bound,
      ])) as Done[];
      const exits = await Promise.race([Promise.all(workers.map((w) => w.exited)), bound]);
      clearTimeout(stopClock);
      expect(exits.map((e) => e.code)).toEqual(workers.map(() => 0));
      const runMs = Date.now() - t0;

      const finalMax = Number((await store.tags.getTag(TAG))!.maxId);
      const growth = finalMax - initialMax;

      // --- the claimed segments: owned by exactly one process each, tiling (initialMax, finalMax] exactly.
      const checkStart = Date.now();
      const owner = new Uint8Array(growth);
      const segments: Array<{ start: number; max: number; worker: number }> = [];
      let claimed = 0;
      let maxStep = 0;
      results.forEach((r, w) => {
        expect(r.failedAllocations, `worker ${w}: failed allocations`).toBe(0);
        for (const [maxId, step] of r.allocations) {
          segments.push({ start: maxId - step + 1, max: maxId, worker: w });
          claimed += step;
          maxStep = Math.max(maxStep, step);
        }
      });
      segments.sort((a, b) => a.start - b.start);
      let expectedStart = initialMax + 1;
      for (const s of segments) {
        if (s.start !== expectedStart) {
          throw new Error(
            `segments do not tile the claimed range: expected one starting at ${expectedStart}, got ${s.start}..${s.max} (worker ${s.worker})`,
          );
        }
        owner.fill(s.worker + 1, s.start - initialMax - 1, s.max - initialMax);
        expectedStart = s.max + 1;
      }
      expect(expectedStart - 1, 'last claimed ID = final max_id').toBe(finalMax);
      expect(claimed, 'IDs claimed = max_id growth').toBe(growth);

      // --- every issued ID: in range, in its own process's segment, strictly increasing per process, never twice.
      const seen = new Uint8Array(growth);
      let issuedTotal = 0;
      let unissuedTotal = 0;
      for (const [w, result] of results.entries()) {
        const ids = readIds(tmp.file(`${dialect.name}-${w}.f64`));
        expect(ids.length, `worker ${w}: IDs in its file`).toBe(result.issued);
        let prev = -Infinity;
        for (const [i, id] of ids.entries()) {
          if (!(id > prev)) throw new Error(`worker ${w}: ID #${i} = ${id} is not above the previous one, ${prev}`);
          prev = id;
          if (!Number.isSafeInteger(id) || id < 2 || id <= initialMax || id > finalMax) {
            throw new Error(`worker ${w}: ID ${id} is outside [${Math.max(2, initialMax + 1)}, ${finalMax}]`);
          }
          const slot = id - initialMax - 1;
          const issuer = seen[slot];
          const claimer = owner[slot];
          if (issuer === undefined || claimer === undefined)
            throw new Error(`worker ${w}: ID ${id} has no slot among the ${growth} claimed IDs`);
          if (issuer !== 0) throw new Error(`duplicate ID ${id}: issued by worker ${issuer - 1} and by worker ${w}`);
          seen[slot] = w + 1;
          if (claimer !== w + 1)
            throw new Error(`worker ${w} issued ID ${id}, which lies in a segment claimed by worker ${claimer - 1}`);
        }
        issuedTotal += ids.length;
        unissuedTotal += result.unissued;
      }
      expect(issuedTotal).toBe(TOTAL_IDS);
      expect(issuedTotal + unissuedTotal, 'issued + unissued remainder = IDs claimed = max_id growth').toBe(growth);
      // Dynamic step growth happened (each engine doubles its step on quick reloads).
      expect(maxStep).toBeGreaterThanOrEqual(DB_STEP * 8);
      const checkMs = Date.now() - checkStart;

      const restarts = results.reduce((n, r) => n + r.restarts, 0);
      const calls = results.reduce((n, r) => n + r.nextCalls + r.takeCalls, 0);
      console.log(
        `[${dialect.name}] checked ${issuedTotal} IDs from ${PROCESSES} processes (${calls} calls, ${restarts} engine restarts): ` +
          `${segments.length} segments loaded, steps ${DB_STEP}..${maxStep}, max_id ${initialMax} -> ${finalMax}, ` +
          `${unissuedTotal} unissued in buffers at exit; run ${(runMs / 1000).toFixed(1)} s, check ${checkMs} ms, seed ${seed}`,
      );
    } finally {
      clearTimeout(stopClock);
      await store.close();
    }
  });
});
