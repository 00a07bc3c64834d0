/**
 * The client rows: `LeafClient.nextId(tag)` and `take(tag, 1000)` in a child process of their own
 * (tools/bench/clientLoop.ts) against the SQLite fast-lane server, on a tag of their own; meanwhile this process
 * reads the server's CPU time and segment loads, so the row shows what the IDs cost the service (a few lease
 * requests per second, not one request per ID).
 */
import os from 'node:os';
import { CLIENT_MS, CLIENT_TAG, LOOP_WARMUP_MS, TARGET_CLIENT_IDS_PER_S, progress } from './config';
import type { ClientLoopResult } from './clientLoop';
import { type CpuSnap, cpuSnap, serverPids } from './cpu';
import { fmtInt, fmtRate, fmtSmall, fmtUs, mark } from './format';
import { runChild } from './inProcessRows';
import { segmentLoads } from './metrics';
import { failures, rows } from './results';
import type { Server } from './servers';
import { createTag } from './services';

export async function measureClient(server: Server): Promise<void> {
  const refused = await createTag(server, { bizTag: CLIENT_TAG, step: 1000, description: 'npm run bench: LeafClient' });
  if (refused !== null) throw new Error(refused);
  progress(
    `client: LeafClient in its own process against ${server.name} (tag ${CLIENT_TAG}): nextId ${CLIENT_MS} ms, take(tag, 1000) ${CLIENT_MS / 2} ms, after ${LOOP_WARMUP_MS} ms warm-up`,
  );
  const pids = serverPids(server);
  let start: { cpu: CpuSnap; loads: Promise<number> } | null = null;
  let end: { cpu: CpuSnap; loads: Promise<number> } | null = null;
  const r = await runChild<ClientLoopResult>(
    'tools/bench/clientLoop.ts',
    [],
    {
      BENCH_CLIENT_URL: server.base,
      BENCH_CLIENT_TAG: CLIENT_TAG,
      BENCH_INPROC_MS: String(CLIENT_MS),
      BENCH_INPROC_WARMUP_MS: String(LOOP_WARMUP_MS),
    },
    (line) => {
      if (line === '{"phase":"start"}') start = { cpu: cpuSnap(pids), loads: segmentLoads(server, CLIENT_TAG) };
      if (line === '{"phase":"end"}') end = { cpu: cpuSnap(pids), loads: segmentLoads(server, CLIENT_TAG) };
    },
  );
  const s = start as { cpu: CpuSnap; loads: Promise<number> } | null;
  const e = end as { cpu: CpuSnap; loads: Promise<number> } | null;
  if (s === null || e === null) throw new Error('client: the child did not mark its measured window');
  const loads = (await e.loads) - (await s.loads);
  const n = r.next;
  const wallUs = e.cpu.wallUs - s.cpu.wallUs;
  const capacity = wallUs * os.cpus().length;
  const serverUs = e.cpu.serverUs - s.cpu.serverUs;
  const clientUs = (n.ids / n.idsPerCpuSec) * 1e6;
  const other =
    Math.max(0, e.cpu.busyUs - s.cpu.busyUs - serverUs - clientUs - (e.cpu.benchUs - s.cpu.benchUs)) / capacity;
  const bad = n.notIncreasing + r.take.notIncreasing + r.verify.notIncreasing;
  if (bad > 0)
    failures.push(
      `client: ${bad} IDs not above the one before (nextId ${n.notIncreasing}, take ${r.take.notIncreasing}, check pass ${r.verify.notIncreasing})`,
    );
  if (n.requests === 0) failures.push('client: no lease request during the measured nextId run');
  const reqPerS = n.requests / n.seconds;
  const per1000 = (loads / n.ids) * 1000;
  const ok = bad === 0 ? '✔' : '✘';
  rows.push({
    key: 'client-next',
    scenario: `leaf-ts client \`LeafClient.nextId(tag)\` (own process, leasing from the SQLite fast lane: \`GET …/range?count=N\`)`,
    reqPerSec: n.idsPerSec,
    idsPerSec: n.idsPerSec,
    p50: NaN,
    p99: NaN,
    errors: null,
    non2xx: null,
    writesPer1000: per1000,
    writesCell: `${fmtSmall(per1000)} (${fmtInt(loads)} segment loads on the server / ${fmtRate(n.ids)} IDs)`,
    cpuPerReqUs: serverUs / Math.max(1, n.requests),
    cpuShare: { server: serverUs / capacity, gen: clientUs / capacity, other },
    claims: { perSec: loads / n.seconds, count: loads, timed: 0, p50Ms: NaN, p99Ms: NaN },
    ratio:
      `**target ≥ ${fmtRate(TARGET_CLIENT_IDS_PER_S)} IDs/s ${mark(n.idsPerSec >= TARGET_CLIENT_IDS_PER_S)}** (${fmtRate(n.idsPerCpuSec)} per CPU-second of the client); ` +
      `server meanwhile: **${fmtSmall(reqPerS)} lease requests/s** (${fmtInt(n.requests)} requests for ${fmtRate(n.ids)} IDs, leases of ${fmtInt(n.leaseMin)}–${fmtInt(n.leaseMax)}), CPU ${fmtUs(serverUs / Math.max(1, n.requests))} µs per request`,
    check:
      `${ok} first ID of every 100,000 above the last before; ${fmtInt(r.verify.checked)} IDs checked one by one after (separate pass): ${r.verify.notIncreasing} not above the one before; ` +
      `${fmtInt(n.waits)} calls waited for a lease (promise returns)`,
  });
  progress(
    `client nextId: ${fmtRate(n.idsPerSec)} IDs/s (${fmtRate(n.idsPerCpuSec)} per CPU-second), ${n.requests} lease requests (${fmtSmall(reqPerS)}/s), ${n.waits} waits, ${loads} segment loads`,
  );
  const t = r.take;
  rows.push({
    key: 'client-take',
    scenario: 'leaf-ts client `LeafClient.take(tag, 1000)` (calls/s; same process and server)',
    reqPerSec: t.calls / t.seconds,
    idsPerSec: t.idsPerSec,
    p50: NaN,
    p99: NaN,
    errors: null,
    non2xx: null,
    writesPer1000: NaN,
    writesCell: '— (leases as above)',
    cpuPerReqUs: NaN,
    cpuShare: null,
    claims: null,
    ratio: `${fmtSmall(t.requests / t.seconds)} lease requests/s (${fmtInt(t.requests)})`,
    check: `${t.notIncreasing === 0 ? '✔' : '✘'} every array's first ID above the last before; ${fmtInt(t.waits)} calls waited for a lease`,
  });
  progress(`client take: ${fmtRate(t.idsPerSec)} IDs/s, ${t.requests} lease requests, ${t.waits} waits`);
}
