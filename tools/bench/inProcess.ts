/**
 * In-process engine throughput for `npm run bench` (run as its own child process, so nothing else shares its heap).
 * SegmentEngine over an in-memory SqliteStore, one tag of DB step 1000 (the dynamic step grows it, as in production).
 * Uses the synchronous fast path: takeIds returns a value when a buffer can serve, else a promise (awaited).
 * (nextId, beside a bare counter, a tag handle, UUID v7 and ULID, runs in tools/bench/idLoop.ts: one source per process.)
 * Between chunks of calls the loop yields one microtask turn so background preloads can land, as they would
 * between requests. Verifies that every ID is greater than the one before, and counts segment loads (DB writes).
 * Then snowflake: SnowflakeGenerator.nextId() (lib/snowflake/generator.ts, no lease: the pure generator) in each
 * layout preset, next to @sapphire/snowflake's generate() (Twitter's layout) and the npm sonyflake package's nextId()
 * (Sony's fields, ms time), the same loop for all; each counts IDs not above the one before, then a separate pass of
 * SNOWFLAKE_CHECK_IDS IDs (sorted; fewer for a layout whose limit would make it take longer than MEASURE_MS) counts
 * exact duplicates.
 * Env: BENCH_INPROC_MS (measured time per mode, default 3000), BENCH_INPROC_WARMUP_MS (default 1000).
 * Prints one JSON line to stdout.
 */
import { SegmentEngine } from '../../lib/segment/engine';
import type { Id } from '../../lib/segment/id';
import { SqliteStore } from '../../lib/store/sqlite';
import { SnowflakeGenerator } from '../../lib/snowflake/generator';
import { DEFAULT_EPOCH_MS, LAYOUT_PRESETS, SnowflakeLayout } from '../../lib/snowflake/layout';
import { Snowflake } from '@sapphire/snowflake';
import { Sonyflake } from 'sonyflake';

const MEASURE_MS = Number(process.env.BENCH_INPROC_MS ?? 3000);
const WARMUP_MS = Number(process.env.BENCH_INPROC_WARMUP_MS ?? 1000);
const TAG = 'bench';
const BATCH = 1000;
const SNOWFLAKE_CHECK_IDS = 2_000_000;

/** The segment mode's numbers (the JSON line's `take`). */
export interface Result {
  mode: string;
  calls: number;
  ids: number;
  seconds: number;
  idsPerSec: number;
  callsPerSec: number;
  promiseReturns: number;
  step: number;
  ordered: boolean;
  /** Segment loads (store writes) during the measured time. */
  loads: number;
}

/** One snowflake generator's numbers (the JSON line's `snowflake` entries). */
export interface SnowflakeResult {
  /** `ours:<preset>`, `sapphire` or `sonyflake-npm`. */
  mode: string;
  /** For ours: the most IDs per second one worker of the layout can issue. */
  limitPerSec: number | null;
  ids: number;
  seconds: number;
  idsPerSec: number;
  promiseReturns: number;
  /** IDs not greater than the one before, in the timed loop. */
  notIncreasing: number;
  checked: number;
  duplicates: number;
}

async function main(): Promise<void> {
  const store = new SqliteStore({ file: ':memory:' });
  await store.tags.createTag({ bizTag: TAG, step: 1000 });
  let loads = 0;
  const engine = new SegmentEngine({
    store: store.tags,
    refreshIntervalMs: 0,
    onLoad: (_tag, record) => void (record.ok && loads++),
  });
  await engine.start();

  let last: Id = 0;
  let ordered = true;

  // take(tag, 1000)
  async function takeFor(ms: number): Promise<Result> {
    const chunk = 100;
    let calls = 0;
    let promises = 0;
    const t0 = performance.now();
    const end = t0 + ms;
    let now = t0;
    const loads0 = loads;
    while (now < end) {
      for (let i = 0; i < chunk; i++) {
        let r = engine.takeIds(TAG, BATCH);
        if (!Array.isArray(r)) {
          promises++;
          r = await r;
        }
        const first = r[0];
        const tail = r[BATCH - 1];
        if (first === undefined || tail === undefined || first <= last || r.length !== BATCH) ordered = false;
        last = tail ?? last;
      }
      calls += chunk;
      await null;
      now = performance.now();
    }
    return result('take(tag, 1000)', calls, calls * BATCH, now - t0, promises, loads - loads0);
  }

  function result(
    mode: string,
    calls: number,
    ids: number,
    ms: number,
    promiseReturns: number,
    loadCount: number,
  ): Result {
    const seconds = ms / 1000;
    return {
      mode,
      calls,
      ids,
      seconds,
      idsPerSec: ids / seconds,
      callsPerSec: calls / seconds,
      promiseReturns,
      step: engine.snapshot(TAG)?.step ?? 0,
      ordered,
      loads: loadCount,
    };
  }

  await takeFor(WARMUP_MS);
  const take = await takeFor(MEASURE_MS);
  engine.stop();
  await store.close();

  // Snowflake: the same loop shape for both generators (chunks of calls, one microtask turn between chunks).
  const gens: Record<string, () => bigint | Promise<bigint>> = {};
  const limits: Record<string, number> = {};
  for (const preset of LAYOUT_PRESETS) {
    const layout = SnowflakeLayout.preset(preset);
    const ours = new SnowflakeGenerator({ layout, workerId: 1, epochMs: DEFAULT_EPOCH_MS });
    gens[`ours:${preset}`] = () => ours.nextId();
    limits[`ours:${preset}`] = layout.idsPerSecond;
  }
  const sapphire = new Snowflake(BigInt(DEFAULT_EPOCH_MS));
  gens.sapphire = () => sapphire.generate();
  const sonyflake = new Sonyflake({ epoch: DEFAULT_EPOCH_MS, machineId: 1 });
  gens['sonyflake-npm'] = () => BigInt(sonyflake.nextId());
  async function snowflakeFor(mode: string, ms: number): Promise<SnowflakeResult> {
    const gen = gens[mode];
    if (gen === undefined) throw new Error(`unknown snowflake mode "${mode}" (known: ${Object.keys(gens).join(', ')})`);
    const chunk = 10_000;
    let ids = 0;
    let promises = 0;
    let notIncreasing = 0;
    let last = -1n;
    const t0 = performance.now();
    const end = t0 + ms;
    let now = t0;
    while (now < end) {
      for (let i = 0; i < chunk; i++) {
        let id = gen();
        if (typeof id !== 'bigint') {
          promises++;
          id = await id;
        }
        if (id <= last) notIncreasing++;
        last = id;
      }
      ids += chunk;
      await null;
      now = performance.now();
    }
    const seconds = (now - t0) / 1000;
    return {
      mode,
      limitPerSec: limits[mode] ?? null,
      ids,
      seconds,
      idsPerSec: ids / seconds,
      promiseReturns: promises,
      notIncreasing,
      checked: 0,
      duplicates: 0,
    };
  }
  async function duplicates(mode: string): Promise<number> {
    const gen = gens[mode];
    if (gen === undefined) throw new Error(`unknown snowflake mode "${mode}" (known: ${Object.keys(gens).join(', ')})`);
    const all = new BigInt64Array(checkCount(mode));
    for (let i = 0; i < all.length; i++) {
      const id = gen();
      all[i] = typeof id === 'bigint' ? id : await id;
    }
    all.sort();
    let dups = 0;
    for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) dups++;
    return dups;
  }
  /** A limited layout (sonyflake: 25,600 IDs/s) checks what it issues in MEASURE_MS, not a fixed count. */
  const checkCount = (mode: string) =>
    Math.min(SNOWFLAKE_CHECK_IDS, Math.floor(((limits[mode] ?? Infinity) * MEASURE_MS) / 1000));
  const snowflake: SnowflakeResult[] = [];
  for (const mode of Object.keys(gens)) {
    await snowflakeFor(mode, WARMUP_MS);
    const r = await snowflakeFor(mode, MEASURE_MS);
    r.checked = checkCount(mode);
    r.duplicates = await duplicates(mode);
    snowflake.push(r);
  }
  process.stdout.write(JSON.stringify({ take, snowflake }) + '\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
