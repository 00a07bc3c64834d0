/**
 * `LeafClient` (lib/client) in a process of its own, leasing from a leaf-ts server, for `npm run bench`
 * (started by clientRows.ts): `node --import tsx tools/bench/clientLoop.ts`. A caller's own process, so its heap
 * and JIT are not shared with the load generator's bookkeeping, and its CPU is told apart from the server's.
 *  1. `client.nextId(tag)` in a tight loop: chunks of 100,000 calls, then one macrotask turn (setImmediate) so the
 *     background lease requests make progress, as they would between a service's requests. Within a chunk the
 *     loop only keeps the ID; the first ID of each chunk is compared with the last of the one before (a bigint
 *     compare per ID would cost about as much as the call), and step 3 checks every ID.
 *     Prints `{"phase":"start"}` and `{"phase":"end"}` around the measured time, so the bench can read the
 *     server's CPU and segment loads over the same window.
 *  2. `client.take(tag, 1000)`: chunks of 100 calls, each array's first ID above the previous one's last.
 *  3. A check pass of VERIFY_IDS IDs through nextId, each compared with the one before.
 * Every lease request is counted through the client's `fetch` option (a wrapper around the global fetch).
 * Env: BENCH_CLIENT_URL, BENCH_CLIENT_TAG, BENCH_INPROC_MS (measured ms of step 1; step 2 gets half), BENCH_INPROC_WARMUP_MS.
 * Prints one JSON line last.
 */
import { LeafClient, type FetchLike } from '../../lib/client';

const URL_ = process.env.BENCH_CLIENT_URL as string;
const TAG = process.env.BENCH_CLIENT_TAG as string;
const MEASURE_MS = Number(process.env.BENCH_INPROC_MS ?? 3000);
const WARMUP_MS = Number(process.env.BENCH_INPROC_WARMUP_MS ?? 500);
const CHUNK = 100_000;
const TAKE = 1000;
const TAKE_CHUNK = 100;
const VERIFY_IDS = 2_000_000;

export interface ClientLoopResult {
  next: {
    ids: number;
    seconds: number;
    idsPerSec: number;
    idsPerCpuSec: number;
    waits: number;
    requests: number;
    leased: number;
    leaseMin: number;
    leaseMax: number;
    notIncreasing: number;
  };
  take: { calls: number; seconds: number; idsPerSec: number; waits: number; requests: number; notIncreasing: number };
  verify: { checked: number; notIncreasing: number };
  /** The last ID handed out. */
  last: string;
}

const requests: Array<{ at: number; count: number }> = [];
const countingFetch: FetchLike = (url, init) => {
  requests.push({ at: performance.now(), count: Number(new URL(url).searchParams.get('count')) });
  return fetch(url, init);
};
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function main(): Promise<void> {
  const client = new LeafClient({ urls: [URL_], fetch: countingFetch });
  let last = 0n;

  async function nextFor(ms: number) {
    let ids = 0;
    let waits = 0;
    let notIncreasing = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const end = t0 + ms;
    let now = t0;
    while (now < end) {
      let first = client.nextId(TAG);
      if (typeof first !== 'bigint') {
        waits++;
        first = await first;
      }
      if (first <= last) notIncreasing++;
      let id = first;
      for (let i = 1; i < CHUNK; i++) {
        let next = client.nextId(TAG);
        if (typeof next !== 'bigint') {
          waits++;
          next = await next;
        }
        id = next;
      }
      last = id;
      ids += CHUNK;
      await turn();
      now = performance.now();
    }
    const cpu = process.cpuUsage(cpu0);
    return { ids, t0, now, cpuSeconds: (cpu.user + cpu.system) / 1e6, waits, notIncreasing };
  }

  async function takeFor(ms: number) {
    let calls = 0;
    let waits = 0;
    let notIncreasing = 0;
    const t0 = performance.now();
    const end = t0 + ms;
    let now = t0;
    while (now < end) {
      for (let i = 0; i < TAKE_CHUNK; i++) {
        let ids = client.take(TAG, TAKE);
        if (!Array.isArray(ids)) {
          waits++;
          ids = await ids;
        }
        if ((ids[0] as bigint) <= last) notIncreasing++;
        last = ids[TAKE - 1] as bigint;
      }
      calls += TAKE_CHUNK;
      await turn();
      now = performance.now();
    }
    return { calls, t0, now, waits, notIncreasing };
  }

  const inWindow = (t0: number, t1: number) => requests.filter((r) => r.at >= t0 && r.at <= t1);

  await nextFor(WARMUP_MS);
  process.stdout.write('{"phase":"start"}\n');
  const n = await nextFor(MEASURE_MS);
  process.stdout.write('{"phase":"end"}\n');
  const nReq = inWindow(n.t0, n.now);
  const seconds = (n.now - n.t0) / 1000;

  await takeFor(Math.min(200, WARMUP_MS));
  const t = await takeFor(MEASURE_MS / 2);
  const takeSeconds = (t.now - t.t0) / 1000;

  let verifyBad = 0;
  for (let i = 0; i < VERIFY_IDS; i++) {
    let id = client.nextId(TAG);
    if (typeof id !== 'bigint') id = await id;
    if (id <= last) verifyBad++;
    last = id;
    if (i % CHUNK === CHUNK - 1) await turn();
  }
  client.close();

  const result: ClientLoopResult = {
    next: {
      ids: n.ids,
      seconds,
      idsPerSec: n.ids / seconds,
      idsPerCpuSec: n.ids / n.cpuSeconds,
      waits: n.waits,
      requests: nReq.length,
      leased: nReq.reduce((a, r) => a + r.count, 0),
      leaseMin: nReq.length === 0 ? 0 : Math.min(...nReq.map((r) => r.count)),
      leaseMax: Math.max(0, ...nReq.map((r) => r.count)),
      notIncreasing: n.notIncreasing,
    },
    take: {
      calls: t.calls,
      seconds: takeSeconds,
      idsPerSec: (t.calls * TAKE) / takeSeconds,
      waits: t.waits,
      requests: inWindow(t.t0, t.now).length,
      notIncreasing: t.notIncreasing,
    },
    verify: { checked: VERIFY_IDS, notIncreasing: verifyBad },
    last: String(last),
  };
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
