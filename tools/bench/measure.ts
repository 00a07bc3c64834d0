/**
 * One HTTP row measured with autocannon (in this process, one thread): warm-up, probes before and after, the
 * measured run with its latency histogram, CPU accounting and ID sample; accumulated over the rounds into a Row.
 */
import os from 'node:os';
import { type RecordableHistogram, createHistogram } from 'node:perf_hooks';
import {
  CONNECTIONS,
  TAG,
  LEASE_MS,
  NOISY_OTHER_SHARE,
  PIPELINING,
  ROUNDS,
  SAMPLE_IDS_PER_RUN,
  WARMUP_S,
  progress,
  settings,
} from './config';
import { type CpuSnap, cpuSnap, serverPids } from './cpu';
import { fmtInt, fmtRate, fmtSmall, fmtUs, pct } from './format';
import { type IdKind, idsOf, idsPerResponse, probe } from './ids';
import { loadDurations, segmentLoads } from './metrics';
import { percentile } from '../harness';
import { type Row, failures } from './results';
import type { Server } from './servers';

// autocannon ships no types; this is the part used here.
export interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  resets: number;
  statusCodeStats: Record<string, { count: number }>;
}
export interface AutocannonInstance {
  on(
    event: 'response',
    listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
  ): void;
  stop(): void;
}
export type Autocannon = (
  opts: Record<string, unknown>,
  cb: (err: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const autocannon = require('autocannon') as Autocannon;
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const autocannonVersion = (require('autocannon/package.json') as { version: string }).version;

// ---- load and CPU accounting --------------------------------------------------------------------------------

export interface Load {
  ok: number;
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  seconds: number;
}

/** IDs taken from response bodies during a row, for the uniqueness check. */
export interface Sample {
  seen: Set<string>;
  ids: number;
  repeats: number;
  malformed: number;
  firstProblem: string;
}

/**
 * One autocannon run. Latency goes into `hist` (µs resolution, from autocannon's per-response event; its own
 * histogram is whole milliseconds); null for warm-up runs. With `sample`, autocannon's verifyBody hook (it always
 * answers true) takes the IDs of response bodies, SAMPLE_IDS_PER_RUN spread evenly over the run.
 */
export function cannon(
  url: string,
  seconds: number,
  hist: RecordableHistogram | null,
  sample: { into: Sample; kind: IdKind; tag: string } | null = null,
): Promise<Load> {
  return new Promise((resolve, reject) => {
    let verifyBody: ((body: string) => boolean) | undefined;
    if (sample !== null) {
      const start = performance.now();
      const perMs = SAMPLE_IDS_PER_RUN / (seconds * 1000);
      let taken = 0;
      verifyBody = (body) => {
        if (taken > (performance.now() - start) * perMs) return true;
        const ids = idsOf(body, sample.kind, sample.tag);
        if (ids === null) return true; // an error body: counted as non-2xx by autocannon
        const s = sample.into;
        if (typeof ids === 'string') {
          s.malformed++;
          if (s.firstProblem === '') s.firstProblem = ids;
          return true;
        }
        taken += ids.length;
        s.ids += ids.length;
        if (sample.kind === 'constant') return true;
        for (const id of ids) {
          if (s.seen.has(id)) {
            s.repeats++;
            if (s.firstProblem === '') s.firstProblem = `repeated ID ${id}`;
          } else s.seen.add(id);
        }
        return true;
      };
    }
    const instance = autocannon(
      { url, connections: CONNECTIONS, pipelining: PIPELINING, duration: seconds, timeout: 10, verifyBody },
      (err, r) => {
        if (err) return reject(err);
        const statusCodes: Record<string, number> = {};
        for (const [code, { count }] of Object.entries(r.statusCodeStats)) statusCodes[code] = count;
        resolve({ ok: r['2xx'], errors: r.errors + r.resets, non2xx: r.non2xx, statusCodes, seconds: r.duration });
      },
    );
    if (hist !== null) {
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        if (statusCode >= 200 && statusCode < 300) hist.record(Math.max(1, Math.round(responseTime * 1000)));
      });
    }
  });
}

/** How a row's DB writes per 1,000 IDs are known: counted (leaf-ts segment loads), fixed by the approach, or none. */
export type Writes =
  | { kind: 'loads' }
  | { kind: 'lease' }
  | { kind: 'fixed'; per1000: number; note: string }
  | { kind: 'none'; note: string };

/** One HTTP row, accumulated over the rounds. */
export interface HttpRow {
  key: string;
  scenario: string;
  server: Server;
  /** The tag the route asks for (its IDs, segment loads and load log). */
  tag: string;
  /** Path and query of the request every connection sends. */
  route: string;
  kind: IdKind;
  /**
   * `gap`: one process hands out increasing dense IDs, so every ID served during a run lies strictly between the
   * probes just before and just after it; `increasing`: the after-probe is above the before-probe (snowflake);
   * `none` (cluster workers interleave, UUIDs and the constant route have no order).
   */
  order: 'gap' | 'increasing' | 'none';
  writes: Writes;
  hist: RecordableHistogram;
  ok: number;
  seconds: number;
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  cpu: CpuSnap;
  served: number;
  gap: number;
  loads: number;
  sample: Sample;
  perRound: number[];
  orderOk: boolean;
  /**
   * Durations (ms) of the segment loads that started during the measured runs, from the node's load log; null
   * where not timed (no segment loads, or several cluster workers). `untimed`: loads the counter saw but the log
   * did not (ring overwritten, or a load still running when the window closed).
   */
  loadTimes: { durationsMs: number[]; untimed: number } | null;
  /** Started before the warm-up, stopped after the measured run (the slow-client row's attack). */
  around?: () => Promise<() => void>;
}

export function httpRow(
  server: Server,
  key: string,
  scenario: string,
  route: string,
  kind: IdKind,
  order: HttpRow['order'],
  writes: Writes,
  tag: string = TAG,
): HttpRow {
  return {
    key,
    scenario,
    server,
    tag,
    route,
    kind,
    order,
    writes,
    hist: createHistogram(),
    ok: 0,
    seconds: 0,
    errors: 0,
    non2xx: 0,
    statusCodes: {},
    cpu: { wallUs: 0, busyUs: 0, serverUs: 0, benchUs: 0 },
    served: 0,
    gap: 0,
    loads: 0,
    sample: { seen: new Set(), ids: 0, repeats: 0, malformed: 0, firstProblem: '' },
    perRound: [],
    orderOk: true,
    loadTimes: writes.kind === 'loads' && server.workers === 1 ? { durationsMs: [], untimed: 0 } : null,
  };
}

export async function measureOnce(row: HttpRow, round: number): Promise<void> {
  const { server, kind, key } = row;
  const url = `${server.base}${row.route}`;
  const perResponse = idsPerResponse(kind);
  const label = `${key} [round ${round + 1}/${ROUNDS}]`;
  progress(`${label}: ${server.name}, GET ${row.route}: warm-up ${WARMUP_S} s, then measuring ${settings.durationS} s`);
  const stopAround = row.around === undefined ? null : await row.around();
  try {
    await measureRun(row, round, url, perResponse, label);
  } finally {
    stopAround?.();
  }
}

async function measureRun(row: HttpRow, round: number, url: string, perResponse: number, label: string) {
  const { server, kind, tag } = row;
  await cannon(url, WARMUP_S, null);
  const loads0 = row.writes.kind === 'loads' ? await segmentLoads(server, tag) : 0;
  const before = await probe(url, kind, tag);
  const pids = serverPids(server);
  const sample0 = { ids: row.sample.ids, repeats: row.sample.repeats, malformed: row.sample.malformed };
  const c0 = cpuSnap(pids);
  const from = Date.now();
  const load = await cannon(url, settings.durationS, row.hist, { into: row.sample, kind, tag });
  const to = Date.now();
  const c1 = cpuSnap(pids);
  const after = await probe(url, kind, tag);
  const loads = row.writes.kind === 'loads' ? (await segmentLoads(server, tag)) - loads0 : 0;
  let timed = '';
  if (row.loadTimes !== null) {
    const t = await loadDurations(server, from, to, tag);
    if (t.failed > 0) failures.push(`${label}: ${t.failed} failed segment loads`);
    row.loadTimes.durationsMs.push(...t.durationsMs);
    row.loadTimes.untimed += Math.max(0, loads - t.durationsMs.length);
    timed =
      t.durationsMs.length === 0
        ? ''
        : ` (load ms: max ${Math.max(...t.durationsMs)}${t.durationsMs.length < loads ? `, ${t.durationsMs.length} of ${loads} in the log` : ''})`;
  }

  const served = load.ok * perResponse;
  let orderNote = '';
  if (row.order === 'gap') {
    // One process hands IDs out in order, so every ID served during the run lies strictly between the two probes.
    // BigInt: above 2^53 (the wide rows) a double would round the probes.
    const gap = Number(BigInt(after.first) - BigInt(before.last) - 1n);
    row.gap += gap;
    if (gap < served) {
      row.orderOk = false;
      failures.push(`${label}: ${served} IDs served but only ${gap} lie between the probes (repeats)`);
    }
    orderNote = `IDs ${served.toLocaleString('en-US')} ≤ gap ${gap.toLocaleString('en-US')} ${gap >= served ? '✔' : '✘'}`;
  } else if (row.order === 'increasing') {
    const up = BigInt(after.first) > BigInt(before.last);
    if (!up) {
      row.orderOk = false;
      failures.push(`${label}: the ID after the run (${after.first}) is not above the one before (${before.last})`);
    }
    orderNote = `probe after > before ${up ? '✔' : '✘'}`;
  }
  const sampled = row.sample.ids - sample0.ids;
  const repeats = row.sample.repeats - sample0.repeats;
  const malformed = row.sample.malformed - sample0.malformed;
  if (kind !== 'constant' && repeats > 0)
    failures.push(`${label}: ${repeats} repeated IDs in the sample (${row.sample.firstProblem})`);
  if (malformed > 0) failures.push(`${label}: ${malformed} malformed bodies (${row.sample.firstProblem})`);
  if (load.errors > 0 || load.non2xx > 0)
    failures.push(`${label}: ${load.errors} errors, ${load.non2xx} non-2xx (${JSON.stringify(load.statusCodes)})`);
  if (load.ok === 0) failures.push(`${label}: no successful responses`);

  row.ok += load.ok;
  row.seconds += load.seconds;
  row.errors += load.errors;
  row.non2xx += load.non2xx;
  for (const [code, n] of Object.entries(load.statusCodes)) row.statusCodes[code] = (row.statusCodes[code] ?? 0) + n;
  row.cpu.wallUs += c1.wallUs - c0.wallUs;
  row.cpu.busyUs += c1.busyUs - c0.busyUs;
  row.cpu.serverUs += c1.serverUs - c0.serverUs;
  row.cpu.benchUs += c1.benchUs - c0.benchUs;
  row.served += served;
  row.loads += loads;
  const rps = load.ok / load.seconds;
  row.perRound.push(rps);
  const capacity = (c1.wallUs - c0.wallUs) * os.cpus().length;
  progress(
    `${label}: ${fmtInt(rps)} req/s (${fmtRate(served / load.seconds)} IDs/s), errors ${load.errors}, non-2xx ${load.non2xx}, ` +
      `server ${fmtUs((c1.serverUs - c0.serverUs) / load.ok)} CPU µs/req; CPU server/gen/other ` +
      `${pct((c1.serverUs - c0.serverUs) / capacity)}/${pct((c1.benchUs - c0.benchUs) / capacity)}/` +
      `${pct(Math.max(0, c1.busyUs - c0.busyUs - (c1.serverUs - c0.serverUs) - (c1.benchUs - c0.benchUs)) / capacity)} %; ` +
      (row.writes.kind === 'loads' ? `${loads} segment load${loads === 1 ? '' : 's'}${timed}; ` : '') +
      (orderNote === '' ? '' : `${orderNote}; `) +
      `sample ${sampled.toLocaleString('en-US')} IDs` +
      (kind === 'constant'
        ? ' (constant, not checked for repeats)'
        : `, ${repeats} repeats ${repeats === 0 && malformed === 0 ? '✔' : '✘'}`),
  );
}

export function writesOf(r: HttpRow): { per1000: number; cell: string } {
  const w = r.writes;
  if (w.kind === 'loads') {
    const per1000 = (r.loads / r.served) * 1000;
    return {
      per1000,
      cell: `${fmtSmall(per1000)} (${fmtInt(r.loads)} segment load${r.loads === 1 ? '' : 's'} / ${fmtRate(r.served)} IDs)`,
    };
  }
  if (w.kind === 'lease') {
    const renewals = (r.seconds * 1000) / (LEASE_MS / 3);
    const per1000 = (renewals / r.served) * 1000;
    return {
      per1000,
      cell: `≈ ${fmtSmall(per1000)} (worker-id lease renewal every ${(LEASE_MS / 3000).toFixed(1)} s, none per ID)`,
    };
  }
  if (w.kind === 'fixed') return { per1000: w.per1000, cell: `${fmtInt(w.per1000)} (${w.note})` };
  return { per1000: NaN, cell: `— (${w.note})` };
}

export function finishHttpRow(r: HttpRow): Row {
  const capacity = r.cpu.wallUs * os.cpus().length;
  const perReq = idsPerResponse(r.kind);
  const reqPerSec = r.ok / r.seconds;
  const sampleOk = r.sample.malformed === 0 && (r.kind === 'constant' || r.sample.repeats === 0);
  const ok = r.errors === 0 && r.non2xx === 0 && r.orderOk && sampleOk && r.ok > 0;
  const other = Math.max(0, r.cpu.busyUs - r.cpu.serverUs - r.cpu.benchUs) / capacity;
  const writes = writesOf(r);
  const orderCheck =
    r.order === 'gap'
      ? `; ${r.served.toLocaleString('en-US')} IDs ≤ gap ${r.gap.toLocaleString('en-US')}`
      : r.order === 'increasing'
        ? '; IDs rise across every run'
        : '';
  const sampleCheck =
    r.kind === 'constant'
      ? `; ${r.sample.ids.toLocaleString('en-US')} sampled bodies well-formed (constant by design)`
      : `; sample of ${r.sample.ids.toLocaleString('en-US')} IDs: ${r.sample.repeats} repeats`;
  return {
    key: r.key,
    scenario: r.scenario,
    reqPerSec,
    idsPerSec: reqPerSec * perReq,
    p50: r.hist.count === 0 ? NaN : r.hist.percentile(50) / 1000,
    p99: r.hist.count === 0 ? NaN : r.hist.percentile(99) / 1000,
    errors: r.errors,
    non2xx: r.non2xx,
    writesPer1000: writes.per1000,
    writesCell: writes.cell,
    cpuPerReqUs: r.cpu.serverUs / r.ok,
    cpuShare: {
      server: r.cpu.serverUs / capacity,
      gen: r.cpu.benchUs / capacity,
      other,
    },
    check:
      (other > NOISY_OTHER_SHARE ? `⚠ noisy: other processes took ${pct(other)} % of the machine; ` : '') +
      `${ok ? '✔' : '✘'} per round ${r.perRound.map((x) => fmtInt(x)).join(' / ')} req/s${orderCheck}${sampleCheck}`,
    claims:
      r.loadTimes === null
        ? null
        : {
            perSec: r.loads / r.seconds,
            count: r.loads,
            timed: r.loadTimes.durationsMs.length,
            p50Ms: percentile(r.loadTimes.durationsMs, 50),
            p99Ms: percentile(r.loadTimes.durationsMs, 99),
          },
  };
}
