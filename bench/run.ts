/**
 * `npm run bench`: fast lane vs plain Next route handler vs bare node:http, plus in-process engine throughput.
 * Every server is its own child process (killed by PID at the end, on error and on SIGINT); the load generator is
 * autocannon, run programmatically in this process (one thread), so it shares the machine's cores with the server.
 * Prints progress, then one markdown table, also written to bench/results.md.
 *
 * Settings (env): BENCH_CONNECTIONS (50), BENCH_DURATION (5 s measured per run), BENCH_ROUNDS (2 runs per row, in
 * alternating order, so a row gets 10 s), BENCH_WARMUP (2 s before every run), BENCH_PIPELINING (1),
 * BENCH_INPROC_MS (3000), BENCH_REBUILD=1 forces `next build` first.
 * Exit code 1 when a correctness check fails (errors, non-2xx, malformed or repeated IDs); missed targets only warn.
 * No top-level await: package.json has no "type": "module", so tsx runs this file as CommonJS.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import serverNodeFlags from '../scripts/serverNodeFlags.cjs';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type RecordableHistogram, createHistogram } from 'node:perf_hooks';

// autocannon ships no types; this is the part used here.
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  resets: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonInstance {
  on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
  stop(): void;
}
type Autocannon = (opts: Record<string, unknown>, cb: (err: Error | null, result: AutocannonResult) => void) => AutocannonInstance;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannonVersion = (require('autocannon/package.json') as { version: string }).version;

const ROOT = path.resolve(__dirname, '..');
const RESULTS_FILE = path.join(__dirname, 'results.md');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 2);
const PIPELINING = Number(process.env.BENCH_PIPELINING ?? 1);
const INPROC_MS = Number(process.env.BENCH_INPROC_MS ?? 3000);
const HARD_CAP_MS = 5 * 60_000;
const READY_TIMEOUT_MS = 60_000;
const BATCH = 1000;
const TAG = 'demo';
const TARGET_VS_BARE = 0.8;
const TARGET_TAKE_IDS_PER_S = 30e6;
/** A row is flagged when processes other than the server and the load generator used more than this share of all cores. */
const NOISY_OTHER_SHARE = 0.1;

const t0 = Date.now();
function progress(msg: string): void {
  console.log(`[bench +${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${msg}`);
}

// ---- child processes ------------------------------------------------------------------------------------------

interface Server {
  name: string;
  child: ChildProcess;
  port: number;
  base: string;
  /** Last lines of the server's stdout/stderr, shown when something goes wrong. */
  tail: string[];
  /** stderr lines (the servers log at warn, so any line is worth a look). */
  logLines: number;
}

const children = new Set<ChildProcess>();
const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-bench-'));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function startServer(name: string, script: string, extraEnv: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', LEAF_LOG_LEVEL: 'warn', ...extraEnv };
  // The shell's own settings must not leak in: a DATABASE_URL would win over the temp SQLite file, a token would
  // make every request a 401, and LEAF_WORKERS>1 would put the engine in cluster workers this bench does not watch.
  delete env.DATABASE_URL;
  delete env.LEAF_ID_TOKEN;
  env.LEAF_WORKERS = '1';
  // Every server, bare included, runs with the flags `npm start` uses.
  const child = spawn(process.execPath, [...serverNodeFlags, '--import', 'tsx', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const server: Server = { name, child, port, base: `http://127.0.0.1:${port}`, tail: [], logLines: 0 };
  const keep = (isErr: boolean) => (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() === '') continue;
      // Next prints its config-load notice on stdout; anything on stderr is a log line at warn or above.
      if (isErr) server.logLines++;
      server.tail.push(line);
      if (server.tail.length > 40) server.tail.shift();
    }
  };
  child.stdout?.on('data', keep(false));
  child.stderr?.on('data', keep(true));
  progress(`${name}: started PID ${child.pid} (${script}) on 127.0.0.1:${port}; polling /api/health`);

  const started = Date.now();
  while (Date.now() - started < READY_TIMEOUT_MS) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    try {
      const r = await fetch(`${server.base}/api/health`);
      await r.arrayBuffer();
      if (r.status === 200) {
        progress(`${name}: ready after ${Date.now() - started} ms`);
        return server;
      }
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  const why = child.exitCode !== null || child.signalCode !== null ? `exited (${child.exitCode ?? child.signalCode})` : `not ready within ${READY_TIMEOUT_MS} ms`;
  await stopServer(server);
  throw new Error(`${name} ${why}. Last output:\n${server.tail.join('\n')}`);
}

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), sleep(5_000).then(() => true)]);
  if (timedOut) {
    child.kill('SIGKILL');
    await exited;
  }
}

async function stopServer(server: Server): Promise<void> {
  await killChild(server.child);
  progress(`${server.name}: stopped PID ${server.child.pid}`);
}

async function cleanup(): Promise<void> {
  await Promise.all([...children].map(killChild));
  fs.rmSync(tmpDir, { recursive: true, force: true });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---- load and CPU accounting --------------------------------------------------------------------------------

interface Load {
  ok: number;
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  seconds: number;
}

/**
 * One autocannon run. Latency goes into `hist` (µs resolution, from autocannon's per-response event; its own
 * histogram is whole milliseconds); null for warm-up runs.
 */
function cannon(url: string, seconds: number, hist: RecordableHistogram | null): Promise<Load> {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url, connections: CONNECTIONS, pipelining: PIPELINING, duration: seconds, timeout: 10 }, (err, r) => {
      if (err) return reject(err);
      const statusCodes: Record<string, number> = {};
      for (const [code, { count }] of Object.entries(r.statusCodeStats)) statusCodes[code] = count;
      resolve({ ok: r['2xx'], errors: r.errors + r.resets, non2xx: r.non2xx, statusCodes, seconds: r.duration });
    });
    if (hist !== null) {
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        if (statusCode >= 200 && statusCode < 300) hist.record(Math.max(1, Math.round(responseTime * 1000)));
      });
    }
  });
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const US_PER_TICK = 1e6 / CLK_TCK;

interface CpuSnap {
  wallUs: number;
  busyUs: number;
  serverUs: number;
  benchUs: number;
}

/** Machine-wide busy time (/proc/stat), the server's CPU time (/proc/PID/stat) and this process's, in µs. */
function cpuSnap(pid: number | undefined): CpuSnap {
  let busyUs = NaN;
  let serverUs = NaN;
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
    busyUs = (user + nice + system + irq + softirq + steal) * US_PER_TICK;
    void idle;
    void iowait;
    if (pid !== undefined) {
      const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = st.slice(st.lastIndexOf(')') + 2).split(' ');
      serverUs = (Number(fields[11]) + Number(fields[12])) * US_PER_TICK;
    }
  } catch {
    // not Linux: CPU columns stay empty
  }
  const u = process.cpuUsage();
  return { wallUs: performance.now() * 1000, busyUs, serverUs, benchUs: u.user + u.system };
}

// ---- correctness probes ---------------------------------------------------------------------------------------

/** Fetches one response and returns its first and last ID, checking the JSON shape. */
async function probe(url: string, batch: boolean): Promise<{ first: number; last: number }> {
  const r = await fetch(url);
  const text = await r.text();
  if (r.status !== 200) throw new Error(`probe ${url}: HTTP ${r.status} ${text.slice(0, 200)}`);
  const body = JSON.parse(text) as { tag?: unknown; id?: unknown; ids?: unknown };
  if (body.tag !== TAG) throw new Error(`probe ${url}: tag ${JSON.stringify(body.tag)}`);
  if (!batch) {
    if (typeof body.id !== 'string' || !/^[1-9]\d*$/.test(body.id)) throw new Error(`probe ${url}: id ${JSON.stringify(body.id)}`);
    return { first: Number(body.id), last: Number(body.id) };
  }
  const ids = body.ids;
  if (!Array.isArray(ids) || ids.length !== BATCH) throw new Error(`probe ${url}: ids is not an array of ${BATCH}`);
  let prev = 0;
  for (const s of ids) {
    if (typeof s !== 'string' || !/^[1-9]\d*$/.test(s) || Number(s) <= prev) throw new Error(`probe ${url}: ids not increasing at ${JSON.stringify(s)}`);
    prev = Number(s);
  }
  return { first: Number(ids[0]), last: prev };
}

// ---- rows -------------------------------------------------------------------------------------------------------

interface Row {
  key: string;
  scenario: string;
  reqPerSec: number;
  idsPerSec: number;
  p50: number;
  p99: number;
  errors: number | null;
  non2xx: number | null;
  /** Server CPU time per successful request, µs. */
  cpuPerReqUs: number;
  /** Share of the machine (all cores) used by the server, the load generator (this process) and everything else. */
  cpuShare: { server: number; gen: number; other: number } | null;
  check: string;
}

/** One HTTP row, accumulated over the rounds. */
interface HttpRow {
  key: string;
  scenario: string;
  server: Server;
  batch: boolean;
  hist: RecordableHistogram;
  ok: number;
  seconds: number;
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  cpu: CpuSnap;
  served: number;
  gap: number;
  perRound: number[];
}

const rows: Row[] = [];
const failures: string[] = [];

function httpRow(server: Server, key: string, scenario: string, batch: boolean): HttpRow {
  return {
    key, scenario, server, batch, hist: createHistogram(), ok: 0, seconds: 0, errors: 0, non2xx: 0, statusCodes: {},
    cpu: { wallUs: 0, busyUs: 0, serverUs: 0, benchUs: 0 }, served: 0, gap: 0, perRound: [],
  };
}

async function measureOnce(row: HttpRow, round: number): Promise<void> {
  const { server, batch, key } = row;
  const url = `${server.base}/api/id/segment/${TAG}${batch ? `?count=${BATCH}` : ''}`;
  const label = `${key} [round ${round + 1}/${ROUNDS}]`;
  progress(`${label}: ${server.name}, GET ${url.slice(server.base.length)}: warm-up ${WARMUP_S} s, then measuring ${DURATION_S} s`);
  await cannon(url, WARMUP_S, null);
  const before = await probe(url, batch);
  const c0 = cpuSnap(server.child.pid);
  const load = await cannon(url, DURATION_S, row.hist);
  const c1 = cpuSnap(server.child.pid);
  const after = await probe(url, batch);

  // One process hands IDs out in order, so every ID served during the run lies strictly between the two probes.
  const served = load.ok * (batch ? BATCH : 1);
  const gap = after.first - before.last - 1;
  if (gap < served) failures.push(`${label}: ${served} IDs served but only ${gap} lie between the probes (repeats)`);
  if (load.errors > 0 || load.non2xx > 0) failures.push(`${label}: ${load.errors} errors, ${load.non2xx} non-2xx (${JSON.stringify(load.statusCodes)})`);
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
  row.gap += gap;
  const rps = load.ok / load.seconds;
  row.perRound.push(rps);
  const capacity = (c1.wallUs - c0.wallUs) * os.cpus().length;
  progress(
    `${label}: ${fmtInt(rps)} req/s (${fmtRate(served / load.seconds)} IDs/s), errors ${load.errors}, non-2xx ${load.non2xx}, ` +
      `server ${fmtUs((c1.serverUs - c0.serverUs) / load.ok)} CPU µs/req; CPU server/gen/other ` +
      `${pct((c1.serverUs - c0.serverUs) / capacity)}/${pct((c1.benchUs - c0.benchUs) / capacity)}/` +
      `${pct(Math.max(0, c1.busyUs - c0.busyUs - (c1.serverUs - c0.serverUs) - (c1.benchUs - c0.benchUs)) / capacity)} %; ` +
      `IDs ${served.toLocaleString('en-US')} ≤ gap ${gap.toLocaleString('en-US')} ${gap >= served ? '✔' : '✘'}`,
  );
}

function finishHttpRow(r: HttpRow): Row {
  const capacity = r.cpu.wallUs * os.cpus().length;
  const perReq = r.batch ? BATCH : 1;
  const reqPerSec = r.ok / r.seconds;
  const ok = r.errors === 0 && r.non2xx === 0 && r.gap >= r.served && r.ok > 0;
  const other = Math.max(0, r.cpu.busyUs - r.cpu.serverUs - r.cpu.benchUs) / capacity;
  return {
    key: r.key,
    scenario: r.scenario,
    reqPerSec,
    idsPerSec: reqPerSec * perReq,
    p50: r.hist.count === 0 ? NaN : r.hist.percentile(50) / 1000,
    p99: r.hist.count === 0 ? NaN : r.hist.percentile(99) / 1000,
    errors: r.errors,
    non2xx: r.non2xx,
    cpuPerReqUs: r.cpu.serverUs / r.ok,
    cpuShare: {
      server: r.cpu.serverUs / capacity,
      gen: r.cpu.benchUs / capacity,
      other,
    },
    check:
      (other > NOISY_OTHER_SHARE ? `⚠ noisy: other processes took ${pct(other)} % of the machine; ` : '') +
      `${ok ? '✔' : '✘'} per round ${r.perRound.map((x) => fmtInt(x)).join(' / ')} req/s; ${r.served.toLocaleString('en-US')} IDs ≤ gap ${r.gap.toLocaleString('en-US')}`,
  };
}

async function leafServer(name: string, fastLane: boolean): Promise<Server> {
  const dir = fs.mkdtempSync(path.join(tmpDir, 'db-'));
  return startServer(name, 'server.ts', { LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'), LEAF_FAST_LANE: fastLane ? 'on' : 'off' });
}

async function measureInProcess(): Promise<void> {
  progress(`in-process: SegmentEngine over SqliteStore(':memory:'), tag step 1000; takeIds(tag, ${BATCH}) then nextId(tag), ${INPROC_MS} ms each after 1 s warm-up (child process)`);
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/inProcess.ts'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', BENCH_INPROC_MS: String(INPROC_MS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  progress(`in-process: started PID ${child.pid}`);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  children.delete(child);
  if (code !== 0) throw new Error(`bench/inProcess.ts exited with ${code}`);
  type R = { idsPerSec: number; callsPerSec: number; promiseReturns: number; step: number; ordered: boolean };
  const { take, next } = JSON.parse(out.trim().split('\n').pop() as string) as { take: R; next: R };
  for (const [key, r, scenario] of [
    ['take', take, `in-process \`takeIds(tag, ${BATCH})\` (calls/s)`],
    ['nextId', next, 'in-process `nextId(tag)` (calls/s)'],
  ] as const) {
    if (!r.ordered) failures.push(`in-process ${key}: IDs not strictly increasing`);
    const check = `${r.ordered ? '✔' : '✘'} IDs increasing; ${r.promiseReturns} promise returns; step grew to ${r.step.toLocaleString('en-US')}`;
    rows.push({ key, scenario, reqPerSec: r.callsPerSec, idsPerSec: r.idsPerSec, p50: NaN, p99: NaN, errors: null, non2xx: null, cpuPerReqUs: NaN, cpuShare: null, check });
    progress(`in-process ${key}: ${fmtRate(r.idsPerSec)} IDs/s (${check})`);
  }
}

// ---- output -----------------------------------------------------------------------------------------------------

function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—';
}
function fmtRate(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : fmtInt(n);
}
function fmtMs(n: number): string {
  return Number.isFinite(n) ? n.toFixed(2) : '—';
}
function fmtUs(n: number): string {
  return Number.isFinite(n) ? n.toFixed(1) : '—';
}
function pct(n: number): string {
  return Number.isFinite(n) ? (n * 100).toFixed(0) : '—';
}
function mark(ok: boolean): string {
  return ok ? '✅ met' : '❌ MISSED';
}

function row(key: string): Row | undefined {
  return rows.find((r) => r.key === key);
}
function ratio(a: string, b: string): number {
  const x = row(a);
  const y = row(b);
  return x && y ? x.reqPerSec / y.reqPerSec : NaN;
}
/** How many times more server CPU per request `a` spends than `b`. */
function cpuRatio(a: string, b: string): number {
  const x = row(a);
  const y = row(b);
  return x && y ? x.cpuPerReqUs / y.cpuPerReqUs : NaN;
}

interface Meta {
  date: string;
  cpu: string;
  cores: number;
  build: string;
  git: string;
  load: string;
}

function render(meta: Meta): { md: string; missed: string[] } {
  const vsBareSingle = ratio('fast-single', 'bare-single');
  const vsBareBatch = ratio('fast-batch', 'bare-batch');
  const take = row('take');
  const takeOk = take !== undefined && take.idsPerSec >= TARGET_TAKE_IDS_PER_S;
  const missed: string[] = [];
  if (!(vsBareSingle >= TARGET_VS_BARE)) missed.push(`fast lane ÷ bare (single) ${vsBareSingle.toFixed(2)}× < ${TARGET_VS_BARE}×`);
  if (!(vsBareBatch >= TARGET_VS_BARE)) missed.push(`fast lane ÷ bare (batch) ${vsBareBatch.toFixed(2)}× < ${TARGET_VS_BARE}×`);
  if (!takeOk) missed.push(`takeIds ${fmtRate(take?.idsPerSec ?? 0)} IDs/s < 30 M IDs/s`);

  const fastCell = (kind: 'single' | 'batch', vsBare: number) =>
    `**${vsBare.toFixed(2)}× bare** (target ≥ ${TARGET_VS_BARE}× ${mark(vsBare >= TARGET_VS_BARE)}); ` +
    `${ratio(`fast-${kind}`, `next-${kind}`).toFixed(1)}× plain Next; server CPU/req ${cpuRatio(`fast-${kind}`, `bare-${kind}`).toFixed(2)}× bare's`;
  const ratioCell: Record<string, string> = {
    'fast-single': fastCell('single', vsBareSingle),
    'fast-batch': fastCell('batch', vsBareBatch),
    take: `target ≥ 30 M IDs/s ${mark(takeOk)}`,
  };
  const table = [
    '| # | Scenario | req/s | IDs/s | p50 ms | p99 ms | errors / non-2xx | server CPU µs/req | CPU % server / load gen / other | Ratio (target) | Check |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows.map(
      (r, i) =>
        `| ${i + 1} | ${r.scenario} | ${fmtInt(r.reqPerSec)} | ${fmtRate(r.idsPerSec)} | ${fmtMs(r.p50)} | ${fmtMs(r.p99)} | ` +
        `${r.errors === null ? '—' : `${r.errors} / ${r.non2xx}`} | ${fmtUs(r.cpuPerReqUs)} | ` +
        `${r.cpuShare === null ? '—' : `${pct(r.cpuShare.server)} / ${pct(r.cpuShare.gen)} / ${pct(r.cpuShare.other)}`} | ` +
        `${ratioCell[r.key] ?? ''} | ${r.check} |`,
    ),
  ];
  const md = [
    '# leaf-ts benchmark (`npm run bench`)',
    '',
    `- Date: ${meta.date}`,
    `- Node ${process.version} (${os.platform()} ${os.arch()}); CPU: ${meta.cpu}, ${meta.cores} cores; load average at start: ${meta.load}`,
    `- Code: ${meta.git}; Next build: ${meta.build}`,
    `- Load generator: autocannon ${autocannonVersion}, run programmatically (\`require('autocannon')\`) inside the bench process, one thread, ` +
      `on the same machine: it shares the ${meta.cores} cores with the server under test (see the CPU column).`,
    `- Settings, identical for every HTTP row: ${CONNECTIONS} connections, pipelining ${PIPELINING}, keep-alive, 127.0.0.1; ` +
      `per row ${ROUNDS} run(s) × ${DURATION_S} s measured = ${ROUNDS * DURATION_S} s, each run after its own ${WARMUP_S} s warm-up (discarded). ` +
      'Rows are interleaved (bare, fast lane, plain Next; the next round in reverse order); the three servers are up together, one is loaded at a time.',
    '- Servers: `node --max-semi-space-size=64 --import tsx server.ts` (the flags of `npm start`, for bare too) (NODE_ENV=production, LEAF_LOG_LEVEL=warn, fresh temp SQLite file with the default `demo` tag, DB step 1000, ' +
      'dynamic step); plain Next = the same server with LEAF_FAST_LANE=off; bare = `bench/bareServer.ts` (node:http, same JSON shape, headers and writeHead/end, a counter).',
    '- req/s = 2xx responses ÷ measured seconds; IDs/s = req/s × IDs per response; p50/p99 from a µs histogram of all 2xx response times of the row. ' +
      'server CPU µs/req = the server process\'s user+system CPU time (/proc/PID/stat) ÷ 2xx responses: independent of the load generator. ' +
      'CPU % = share of all cores during the measured runs (other = the rest of the machine).',
    `- In-process rows: calls/s in the req/s column; ${INPROC_MS / 1000} s after 1 s warm-up, in a child process (bench/inProcess.ts), over SqliteStore(':memory:').`,
    '- Check: every response 2xx with no socket errors; a probe just before and just after each run must leave a gap of at least the number of IDs served (no repeats).',
    '',
    ...table,
    '',
    `Targets (from the issue): fast lane ≥ ${TARGET_VS_BARE}× bare node:http, single and batch; in-process take ≥ 30 M IDs/s — ` +
      `${missed.length === 0 ? 'all met.' : `MISSED: ${missed.join('; ')}.`}`,
    ...(rows.some((r) => r.cpuShare !== null && r.cpuShare.other > NOISY_OTHER_SHARE)
      ? [
          `Noise: rows marked ⚠ ran while other processes used more than ${pct(NOISY_OTHER_SHARE)} % of the machine; their req/s (and the ratios) understate the server. ` +
            'server CPU µs/req is the steadier comparison.',
        ]
      : []),
    `Correctness: ${failures.length === 0 ? 'all checks passed.' : `FAILED: ${failures.join('; ')}.`}`,
    '',
  ].join('\n');
  return { md, missed };
}

// ---- main -------------------------------------------------------------------------------------------------------

async function ensureBuild(): Promise<string> {
  const buildId = path.join(ROOT, '.next', 'BUILD_ID');
  const nextDir = path.join(ROOT, '.next');
  // A `next build` started elsewhere (npm test, npm start) removes BUILD_ID until it finishes: wait for it, don't race it.
  if (!fs.existsSync(buildId) && fs.existsSync(nextDir) && Date.now() - fs.statSync(nextDir).mtimeMs < 120_000) {
    progress('build: .next/BUILD_ID missing but .next changed in the last 2 min (a build running elsewhere?); waiting up to 120 s');
    const until = Date.now() + 120_000;
    while (!fs.existsSync(buildId) && Date.now() < until) await sleep(1_000);
  }
  if (!fs.existsSync(buildId) || process.env.BENCH_REBUILD === '1') {
    progress('build: .next/BUILD_ID missing (or BENCH_REBUILD=1); running `npx next build`');
    const r = spawnSync('npx', ['next', 'build'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
    if (r.status !== 0) throw new Error(`next build failed (${r.status ?? r.signal})`);
    progress('build: done');
    return `built by this run (${fs.readFileSync(buildId, 'utf8').trim()})`;
  }
  const id = fs.readFileSync(buildId, 'utf8').trim();
  const builtAt = fs.statSync(buildId).mtimeMs;
  const newer = newestMtime(['app', 'components', 'lib', 'proxy.ts', 'middleware.ts', 'next.config.js'].map((d) => path.join(ROOT, d)));
  if (newer.mtime > builtAt) {
    progress(`build: WARNING .next is older than ${path.relative(ROOT, newer.file)}; the plain-Next rows run the old build (BENCH_REBUILD=1 to rebuild)`);
    return `${id}, older than sources (${path.relative(ROOT, newer.file)} changed later)`;
  }
  progress(`build: .next/BUILD_ID present (${id}), up to date`);
  return `${id}, up to date`;
}

function newestMtime(paths: string[]): { mtime: number; file: string } {
  let best = { mtime: 0, file: '' };
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    if (!fs.statSync(dir).isDirectory()) {
      const m = fs.statSync(dir).mtimeMs;
      if (m > best.mtime) best = { mtime: m, file: dir };
      return;
    }
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const m = fs.statSync(p).mtimeMs;
        if (m > best.mtime) best = { mtime: m, file: p };
      }
    }
  };
  paths.forEach(walk);
  return best;
}

function gitDescribe(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const dirty = spawnSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return head ? `git ${head}${dirty ? ' + uncommitted changes' : ''}` : 'not a git checkout';
}

async function main(): Promise<void> {
  const meta = {
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    load: os.loadavg().map((l) => l.toFixed(2)).join(' '),
    git: gitDescribe(),
    build: '',
  };
  progress(
    `leaf-ts bench: ${CONNECTIONS} connections, pipelining ${PIPELINING}, per row ${ROUNDS} × (${WARMUP_S} s warm-up + ${DURATION_S} s measured); ` +
      `${meta.cores}× ${meta.cpu}, node ${process.version}`,
  );
  meta.build = await ensureBuild();

  const bare = await startServer('bare node:http', 'bench/bareServer.ts', {});
  const fast = await leafServer('leaf-ts fast lane', true);
  const plain = await leafServer('plain Next (LEAF_FAST_LANE=off)', false);
  const http: Record<string, HttpRow> = {
    'bare-single': httpRow(bare, 'bare-single', 'bare node:http ceiling, single', false),
    'fast-single': httpRow(fast, 'fast-single', 'leaf-ts fast lane, `GET /api/id/segment/demo`', false),
    'next-single': httpRow(plain, 'next-single', 'plain Next route handler, single', false),
    'bare-batch': httpRow(bare, 'bare-batch', `bare node:http ceiling, \`?count=${BATCH}\``, true),
    'fast-batch': httpRow(fast, 'fast-batch', `leaf-ts fast lane, \`?count=${BATCH}\``, true),
    'next-batch': httpRow(plain, 'next-batch', `plain Next route handler, \`?count=${BATCH}\``, true),
  };
  const perGroup = [
    ['bare-single', 'fast-single', 'next-single'],
    ['bare-batch', 'fast-batch', 'next-batch'],
  ];
  for (let round = 0; round < ROUNDS; round++) {
    for (const group of perGroup) {
      for (const key of round % 2 === 0 ? group : [...group].reverse()) await measureOnce(http[key], round);
    }
  }
  for (const s of [bare, fast, plain]) {
    if (s.child.exitCode !== null || s.child.signalCode !== null) failures.push(`${s.name} exited during the run`);
    if (s.logLines > 0) progress(`${s.name}: ${s.logLines} log lines at warn or above; last:\n${s.tail.join('\n')}`);
    await stopServer(s);
  }
  for (const key of ['fast-single', 'fast-batch', 'next-single', 'next-batch', 'bare-single', 'bare-batch']) rows.push(finishHttpRow(http[key]));

  await measureInProcess();

  const { md, missed } = render(meta);
  fs.writeFileSync(RESULTS_FILE, md);
  console.log('\n' + md);
  progress(`wrote ${path.relative(ROOT, RESULTS_FILE)}; total ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (missed.length > 0) progress(`targets missed: ${missed.join('; ')}`);
  if (failures.length > 0) {
    progress(`FAIL: ${failures.join('; ')}`);
    process.exitCode = 1;
  }
}

const hardCap = setTimeout(() => {
  progress(`hard cap of ${HARD_CAP_MS / 60_000} min reached; stopping`);
  void cleanup().finally(() => process.exit(2));
}, HARD_CAP_MS);
hardCap.unref();

let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    progress(`${sig}: stopping child processes`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', () => {
  // Last resort (e.g. process.exit elsewhere): nothing we started outlives the bench.
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

main()
  .catch((error: unknown) => {
    progress(`ERROR: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    clearTimeout(hardCap);
    await cleanup();
  });
