/**
 * In-process engine throughput for `npm run bench` (run as its own child process, so nothing else shares its heap).
 * SegmentEngine over an in-memory SqliteStore, one tag of DB step 1000 (the dynamic step grows it, as in production).
 * Uses the synchronous fast path: takeIds/nextId return a value when a buffer can serve, else a promise (awaited).
 * Between chunks of calls the loop yields one microtask turn so background preloads can land, as they would
 * between requests. Verifies that every ID is greater than the one before.
 * Env: BENCH_INPROC_MS (measured time per mode, default 3000), BENCH_INPROC_WARMUP_MS (default 1000).
 * Prints one JSON line to stdout.
 */
import { SegmentEngine } from '../lib/segment/engine';
import { SqliteStore } from '../lib/store/sqlite';

const MEASURE_MS = Number(process.env.BENCH_INPROC_MS ?? 3000);
const WARMUP_MS = Number(process.env.BENCH_INPROC_WARMUP_MS ?? 1000);
const TAG = 'bench';
const BATCH = 1000;

interface Result {
  mode: string;
  calls: number;
  ids: number;
  seconds: number;
  idsPerSec: number;
  callsPerSec: number;
  promiseReturns: number;
  step: number;
  ordered: boolean;
}

async function main(): Promise<void> {
  const store = new SqliteStore({ file: ':memory:' });
  await store.createTag({ bizTag: TAG, step: 1000 });
  const engine = new SegmentEngine({ store, refreshIntervalMs: 0 });
  await engine.start();

  let last = 0;
  let ordered = true;

  // take(tag, 1000)
  async function takeFor(ms: number): Promise<Result> {
    const chunk = 100;
    let calls = 0;
    let promises = 0;
    const t0 = performance.now();
    const end = t0 + ms;
    let now = t0;
    while (now < end) {
      for (let i = 0; i < chunk; i++) {
        let r = engine.takeIds(TAG, BATCH);
        if (!Array.isArray(r)) {
          promises++;
          r = await r;
        }
        if (r[0] <= last || r.length !== BATCH) ordered = false;
        last = r[BATCH - 1];
      }
      calls += chunk;
      await null;
      now = performance.now();
    }
    return result('take(tag, 1000)', calls, calls * BATCH, now - t0, promises);
  }

  // nextId(tag)
  async function nextFor(ms: number): Promise<Result> {
    const chunk = 10_000;
    let calls = 0;
    let promises = 0;
    const t0 = performance.now();
    const end = t0 + ms;
    let now = t0;
    while (now < end) {
      for (let i = 0; i < chunk; i++) {
        let id = engine.nextId(TAG);
        if (typeof id !== 'number') {
          promises++;
          id = await id;
        }
        if (id <= last) ordered = false;
        last = id;
      }
      calls += chunk;
      await null;
      now = performance.now();
    }
    return result('nextId(tag)', calls, calls, now - t0, promises);
  }

  function result(mode: string, calls: number, ids: number, ms: number, promiseReturns: number): Result {
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
    };
  }

  await takeFor(WARMUP_MS);
  const take = await takeFor(MEASURE_MS);
  await nextFor(WARMUP_MS);
  const next = await nextFor(MEASURE_MS);
  engine.stop();
  await store.close();
  process.stdout.write(JSON.stringify({ take, next }) + '\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
