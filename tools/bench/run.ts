/**
 * `npm run bench`: leaf-ts next to its ceilings and next to the approaches Leaf replaced, one bounded run (≤ 5 min
 * in all, a hard cap), every row on the same machine with the same autocannon settings:
 *  - leaf-ts fast lane, `/api/id/segment/demo` single and `?count=1000`, on the embedded SQLite and on MariaDB;
 *    the same with LEAF_WORKERS=2 (node:cluster, both cores); `/api/id/snowflake`; the plain Next route handler;
 *  - the ceilings: bare node:http (tools/bench/bareServer.ts) and a constant Next route (app/api/bench/constant, served
 *    only with LEAF_BENCH_ROUTES=on);
 *  - the approaches Leaf replaced, each a bare node:http server (tools/bench/altServer.ts) answering the same JSON shape:
 *    one InnoDB AUTO_INCREMENT INSERT per ID, the Flickr ticket server (MyISAM REPLACE INTO + LAST_INSERT_ID()),
 *    Redis INCR, crypto.randomUUID();
 *  - in-process: SegmentEngine takeIds/nextId, SnowflakeGenerator.nextId next to @sapphire/snowflake.
 * MariaDB is a private mariadbd (tools/harness/mariadb.ts), Redis a private redis-server (tools/harness/redis.ts); both on
 * 127.0.0.1, free ports, own temp dirs, stopped by PID. Every server is its own child process (killed by PID at the
 * end, on error and on SIGINT); the load generator is autocannon, run programmatically in this process (one
 * thread), so it shares the machine's cores with the server under test.
 * Prints progress, then one markdown table, also written to tools/bench/results.md.
 *
 * Settings (env): BENCH_CONNECTIONS (50), BENCH_DURATION (s measured per run; default 5, shortened uniformly for
 * every row when the plan would not fit the 5-min cap), BENCH_ROUNDS (2 runs per row, in alternating order),
 * BENCH_WARMUP (2 s before every run), BENCH_PIPELINING (1), BENCH_INPROC_MS (3000), BENCH_REBUILD=1 forces
 * `next build` first (a build also runs when .next lacks the bench's constant route).
 * Exit code 1 when a correctness check fails (errors, non-2xx, malformed or repeated IDs); missed targets only warn.
 * No top-level await: package.json has no "type": "module", so tsx runs this file as CommonJS.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import serverNodeFlags from '../../scripts/serverNodeFlags.cjs';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type RecordableHistogram, createHistogram } from 'node:perf_hooks';
import { MariadbServer, type RedisServer, freePort, startRedis, withDatabase } from '../harness';
import { ALT_DDL } from './services';

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

const ROOT = path.resolve(__dirname, '../..');
const RESULTS_FILE = path.join(__dirname, 'results.md');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DEFAULT_DURATION_S = 5;
const DURATION_FIXED = process.env.BENCH_DURATION !== undefined && process.env.BENCH_DURATION !== '';
/** Measured seconds per run; set once, for every row alike, by planDuration() unless BENCH_DURATION fixes it. */
let DURATION_S = DURATION_FIXED ? Number(process.env.BENCH_DURATION) : DEFAULT_DURATION_S;
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
/** IDs taken from response bodies per run for the uniqueness check, spread evenly over the run (every row alike). */
const SAMPLE_IDS_PER_RUN = 50_000;
/** The alternatives' MySQL pool (leaf-ts's own MysqlStore uses 8; the alternatives need the connections). */
const ALT_POOL = 16;
/** leaf-ts's snowflake lease (LEAF_WORKER_LEASE_MS default), renewed every third of it: its only DB writes. */
const LEASE_MS = 10_000;
const ADMIN_TOKEN = randomBytes(24).toString('hex');

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
  /** Node processes answering on the port (LEAF_WORKERS). */
  workers: number;
  /** Database processes whose CPU belongs to this server's rows (mariadbd, redis-server). */
  dbPids: number[];
  /** Last lines of the server's stdout/stderr, shown when something goes wrong. */
  tail: string[];
  /** stderr lines (the servers log at warn, so any line is worth a look). */
  logLines: number;
}

const children = new Set<ChildProcess>();
const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-bench-'));
let maria: MariadbServer | null = null;
let redis: RedisServer | null = null;

function track(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

async function startServer(name: string, script: string, extraEnv: Record<string, string>, dbPids: number[] = []): Promise<Server> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', LEAF_LOG_LEVEL: 'warn' };
  // The shell's own settings must not leak in: a DATABASE_URL would win over the temp SQLite file, a token would
  // make every request a 401, LEAF_WORKERS>1 would put the engine in cluster workers a row does not expect, and
  // the bench route or snowflake switches would change what a row measures. Each row sets what it needs.
  for (const k of ['DATABASE_URL', 'LEAF_ID_TOKEN', 'LEAF_ADMIN_TOKEN', 'LEAF_BENCH_ROUTES', 'LEAF_SNOWFLAKE', 'LEAF_NODE_ID', 'LEAF_DATA_DIR', 'LEAF_WORKER_LEASE_MS']) delete env[k];
  env.LEAF_WORKERS = '1';
  Object.assign(env, extraEnv);
  // Every server, bare included, runs with the flags `npm start` uses.
  const child = spawn(process.execPath, [...serverNodeFlags, '--import', 'tsx', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  const server: Server = { name, child, port, base: `http://127.0.0.1:${port}`, workers: Number(env.LEAF_WORKERS), dbPids, tail: [], logLines: 0 };
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
  if (maria !== null) {
    const m = maria;
    maria = null;
    await m.destroy().catch(() => m.killSync());
  }
  fs.rmSync(tmpDir, { recursive: true, force: true });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** GET on a fresh connection (no keep-alive), so node:cluster hands each call to the next worker. */
function getFresh(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { ...headers, connection: 'close' }, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout GET ${url}`)));
    req.on('error', reject);
  });
}

// ---- load and CPU accounting --------------------------------------------------------------------------------

interface Load {
  ok: number;
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  seconds: number;
}

/** IDs taken from response bodies during a row, for the uniqueness check. */
interface Sample {
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
function cannon(url: string, seconds: number, hist: RecordableHistogram | null, sample: { into: Sample; kind: IdKind } | null = null): Promise<Load> {
  return new Promise((resolve, reject) => {
    let verifyBody: ((body: string) => boolean) | undefined;
    if (sample !== null) {
      const start = performance.now();
      const perMs = SAMPLE_IDS_PER_RUN / (seconds * 1000);
      let taken = 0;
      verifyBody = (body) => {
        if (taken > (performance.now() - start) * perMs) return true;
        const ids = idsOf(body, sample.kind);
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
    const instance = autocannon({ url, connections: CONNECTIONS, pipelining: PIPELINING, duration: seconds, timeout: 10, verifyBody }, (err, r) => {
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

/** A process and everything it started (cluster workers), from /proc/PID/task/TID/children. */
function withDescendants(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const tid of fs.readdirSync(`/proc/${out[i]}/task`)) {
        const kids = fs.readFileSync(`/proc/${out[i]}/task/${tid}/children`, 'utf8').trim();
        if (kids !== '') for (const k of kids.split(/\s+/)) out.push(Number(k));
      }
    } catch {
      // gone, or not Linux
    }
  }
  return out;
}

/** The processes whose CPU is the server's in a row: the server, its cluster workers, its database. */
function serverPids(server: Server): number[] {
  return server.child.pid === undefined ? [] : [...withDescendants(server.child.pid), ...server.dbPids];
}

/** Machine-wide busy time (/proc/stat), the server's CPU time (/proc/PID/stat, summed over `pids`) and this process's, in µs. */
function cpuSnap(pids: number[]): CpuSnap {
  let busyUs = NaN;
  let serverUs = pids.length === 0 ? NaN : 0;
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
    busyUs = (user + nice + system + irq + softirq + steal) * US_PER_TICK;
    void idle;
    void iowait;
    for (const pid of pids) {
      const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = st.slice(st.lastIndexOf(')') + 2).split(' ');
      serverUs += (Number(fields[11]) + Number(fields[12])) * US_PER_TICK;
    }
  } catch {
    // not Linux (or a process gone): CPU columns stay empty
    serverUs = NaN;
  }
  const u = process.cpuUsage();
  return { wallUs: performance.now() * 1000, busyUs, serverUs, benchUs: u.user + u.system };
}

// ---- correctness probes ---------------------------------------------------------------------------------------

/**
 * What a row's responses carry: `seq` one decimal ID (`{"tag","id"}`), `batch` BATCH increasing ones
 * (`{"tag","ids"}`), `snowflake` one 63-bit decimal ID (`{"id"}`), `uuid` a v4 UUID (`{"tag","id"}`), `constant`
 * the constant route's fixed `{"tag":"demo","id":"1"}`.
 */
type IdKind = 'seq' | 'batch' | 'snowflake' | 'uuid' | 'constant';
const DECIMAL = /^[1-9]\d*$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The IDs of one response body; null for an error body; a string saying what is wrong with a malformed one. */
function idsOf(text: string, kind: IdKind): string[] | string | null {
  let body: { tag?: unknown; id?: unknown; ids?: unknown; error?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return `not JSON: ${text.slice(0, 80)}`;
  }
  if (body.error !== undefined) return null;
  if (kind !== 'snowflake' && body.tag !== TAG) return `tag ${JSON.stringify(body.tag)}`;
  if (kind === 'batch') {
    const ids = body.ids;
    if (!Array.isArray(ids) || ids.length !== BATCH) return `ids is not an array of ${BATCH}`;
    let prev = 0;
    for (const s of ids) {
      if (typeof s !== 'string' || !DECIMAL.test(s) || Number(s) <= prev) return `ids not increasing at ${JSON.stringify(s)}`;
      prev = Number(s);
    }
    return ids as string[];
  }
  const id = body.id;
  if (typeof id !== 'string') return `id ${JSON.stringify(id)}`;
  if (kind === 'uuid' ? !UUID_V4.test(id) : !DECIMAL.test(id) || (kind === 'constant' && id !== '1')) return `id ${JSON.stringify(id)}`;
  if (kind === 'snowflake' && BigInt(id) >= 1n << 63n) return `id ${id} is not below 2^63`;
  return [id];
}

/** Fetches one response and returns its first and last ID, checking the JSON shape. */
async function probe(url: string, kind: IdKind): Promise<{ first: string; last: string }> {
  const r = await fetch(url);
  const text = await r.text();
  if (r.status !== 200) throw new Error(`probe ${url}: HTTP ${r.status} ${text.slice(0, 200)}`);
  const ids = idsOf(text, kind);
  if (ids === null || typeof ids === 'string') throw new Error(`probe ${url}: ${ids ?? text.slice(0, 200)}`);
  return { first: ids[0], last: ids[ids.length - 1] };
}

// ---- DB writes ------------------------------------------------------------------------------------------------

/**
 * leaf-ts's segment loads so far (each one UPDATE of leaf_alloc), summed over the server's processes: the
 * Prometheus counter leaf_segment_loads_total{biz_tag="demo",outcome="ok"}, scraped on fresh connections until
 * every cluster worker (told apart by its snowflake worker id and start time) has answered.
 */
async function segmentLoads(server: Server): Promise<number> {
  const byWorker = new Map<string, number>();
  for (let attempt = 0; attempt < 40 && byWorker.size < server.workers; attempt++) {
    const { status, text } = await getFresh(`${server.base}/api/metrics`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    if (status !== 200) throw new Error(`${server.name}: GET /api/metrics answered ${status}: ${text.slice(0, 200)}`);
    const worker = `${/^leaf_snowflake_worker_id (\S+)$/m.exec(text)?.[1] ?? '?'}@${/^leaf_process_process_start_time_seconds (\S+)$/m.exec(text)?.[1] ?? '?'}`;
    let loads = 0;
    for (const m of text.matchAll(/^leaf_segment_loads_total\{([^}]*)\} (\S+)$/gm)) {
      if (m[1].includes(`biz_tag="${TAG}"`) && m[1].includes('outcome="ok"')) loads += Number(m[2]);
    }
    byWorker.set(worker, loads);
    if (byWorker.size < server.workers) await sleep(50);
  }
  if (byWorker.size < server.workers) throw new Error(`${server.name}: /api/metrics reached ${byWorker.size} of ${server.workers} workers`);
  return [...byWorker.values()].reduce((a, b) => a + b, 0);
}

/** How a row's DB writes per 1,000 IDs are known: counted (leaf-ts segment loads), fixed by the approach, or none. */
type Writes =
  | { kind: 'loads' }
  | { kind: 'lease' }
  | { kind: 'fixed'; per1000: number; note: string }
  | { kind: 'none'; note: string };

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
  /** DB writes per 1,000 IDs (NaN: no store), with the cell's text. */
  writesPer1000: number;
  writesCell: string;
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
}

const rows: Row[] = [];
const failures: string[] = [];

function httpRow(server: Server, key: string, scenario: string, route: string, kind: IdKind, order: HttpRow['order'], writes: Writes): HttpRow {
  return {
    key, scenario, server, route, kind, order, writes, hist: createHistogram(), ok: 0, seconds: 0, errors: 0, non2xx: 0, statusCodes: {},
    cpu: { wallUs: 0, busyUs: 0, serverUs: 0, benchUs: 0 }, served: 0, gap: 0, loads: 0,
    sample: { seen: new Set(), ids: 0, repeats: 0, malformed: 0, firstProblem: '' }, perRound: [], orderOk: true,
  };
}

async function measureOnce(row: HttpRow, round: number): Promise<void> {
  const { server, kind, key } = row;
  const url = `${server.base}${row.route}`;
  const perResponse = kind === 'batch' ? BATCH : 1;
  const label = `${key} [round ${round + 1}/${ROUNDS}]`;
  progress(`${label}: ${server.name}, GET ${row.route}: warm-up ${WARMUP_S} s, then measuring ${DURATION_S} s`);
  await cannon(url, WARMUP_S, null);
  const loads0 = row.writes.kind === 'loads' ? await segmentLoads(server) : 0;
  const before = await probe(url, kind);
  const pids = serverPids(server);
  const sample0 = { ids: row.sample.ids, repeats: row.sample.repeats, malformed: row.sample.malformed };
  const c0 = cpuSnap(pids);
  const load = await cannon(url, DURATION_S, row.hist, { into: row.sample, kind });
  const c1 = cpuSnap(pids);
  const after = await probe(url, kind);
  const loads = row.writes.kind === 'loads' ? (await segmentLoads(server)) - loads0 : 0;

  const served = load.ok * perResponse;
  let orderNote = '';
  if (row.order === 'gap') {
    // One process hands IDs out in order, so every ID served during the run lies strictly between the two probes.
    const gap = Number(after.first) - Number(before.last) - 1;
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
  if (kind !== 'constant' && repeats > 0) failures.push(`${label}: ${repeats} repeated IDs in the sample (${row.sample.firstProblem})`);
  if (malformed > 0) failures.push(`${label}: ${malformed} malformed bodies (${row.sample.firstProblem})`);
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
  row.loads += loads;
  const rps = load.ok / load.seconds;
  row.perRound.push(rps);
  const capacity = (c1.wallUs - c0.wallUs) * os.cpus().length;
  progress(
    `${label}: ${fmtInt(rps)} req/s (${fmtRate(served / load.seconds)} IDs/s), errors ${load.errors}, non-2xx ${load.non2xx}, ` +
      `server ${fmtUs((c1.serverUs - c0.serverUs) / load.ok)} CPU µs/req; CPU server/gen/other ` +
      `${pct((c1.serverUs - c0.serverUs) / capacity)}/${pct((c1.benchUs - c0.benchUs) / capacity)}/` +
      `${pct(Math.max(0, c1.busyUs - c0.busyUs - (c1.serverUs - c0.serverUs) - (c1.benchUs - c0.benchUs)) / capacity)} %; ` +
      (row.writes.kind === 'loads' ? `${loads} segment load${loads === 1 ? '' : 's'}; ` : '') +
      (orderNote === '' ? '' : `${orderNote}; `) +
      `sample ${sampled.toLocaleString('en-US')} IDs` +
      (kind === 'constant' ? ' (constant, not checked for repeats)' : `, ${repeats} repeats ${repeats === 0 && malformed === 0 ? '✔' : '✘'}`),
  );
}

function writesOf(r: HttpRow): { per1000: number; cell: string } {
  const w = r.writes;
  if (w.kind === 'loads') {
    const per1000 = (r.loads / r.served) * 1000;
    return { per1000, cell: `${fmtSmall(per1000)} (${fmtInt(r.loads)} segment load${r.loads === 1 ? '' : 's'} / ${fmtRate(r.served)} IDs)` };
  }
  if (w.kind === 'lease') {
    const renewals = (r.seconds * 1000) / (LEASE_MS / 3);
    const per1000 = (renewals / r.served) * 1000;
    return { per1000, cell: `≈ ${fmtSmall(per1000)} (worker-id lease renewal every ${(LEASE_MS / 3000).toFixed(1)} s, none per ID)` };
  }
  if (w.kind === 'fixed') return { per1000: w.per1000, cell: `${fmtInt(w.per1000)} (${w.note})` };
  return { per1000: NaN, cell: `— (${w.note})` };
}

function finishHttpRow(r: HttpRow): Row {
  const capacity = r.cpu.wallUs * os.cpus().length;
  const perReq = r.kind === 'batch' ? BATCH : 1;
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
  };
}

async function leafServer(name: string, env: Record<string, string>, dbPids: number[] = []): Promise<Server> {
  const dir = fs.mkdtempSync(path.join(tmpDir, 'db-'));
  return startServer(
    name,
    'server.ts',
    { LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'), LEAF_DATA_DIR: dir, LEAF_ADMIN_TOKEN: ADMIN_TOKEN, LEAF_FAST_LANE: 'on', ...env },
    dbPids,
  );
}

/** Waits until every cluster worker answers /api/metrics (the primary hands connections to listening workers only). */
async function waitForWorkers(server: Server): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      await segmentLoads(server);
      progress(`${server.name}: all ${server.workers} workers answer (${Date.now() - started} ms)`);
      return;
    } catch (error) {
      if (Date.now() - started > READY_TIMEOUT_MS) throw error;
      await sleep(250);
    }
  }
}

interface MariaInfo {
  version: string;
  leafUrl: string;
  altUrl: string;
}

/** The bench's private mariadbd: a database for leaf-ts (its migrations run at its start) and one for the alternatives. */
async function startMaria(): Promise<MariaInfo> {
  const started = Date.now();
  maria = await MariadbServer.create({ baseDir: tmpDir, log: (line) => progress(`mariadb: ${line}`) });
  const leafUrl = await maria.createAppUser('leaf_bench', 'leaf_bench');
  const altUrl = withDatabase(leafUrl, 'leaf_bench_alt');
  const out = (await maria.rootQuery([
    'SELECT VERSION() AS v',
    'CREATE DATABASE leaf_bench_alt CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    'USE leaf_bench_alt',
    ...ALT_DDL,
    "SELECT table_name AS t, engine AS e FROM information_schema.tables WHERE table_schema = 'leaf_bench_alt' ORDER BY table_name",
  ])) as unknown[];
  const version = (out[0] as Array<{ v: string }>)[0].v;
  const engines = out[out.length - 1] as Array<{ t: string; e: string }>;
  const engine = (t: string) => engines.find((x) => x.t === t)?.e;
  if (engine('id_autoinc') !== 'InnoDB' || engine('tickets64') !== 'MyISAM') {
    throw new Error(`alternative tables have the wrong engines: ${JSON.stringify(engines)}`);
  }
  await maria.rootQuery(["INSERT INTO leaf_bench_alt.tickets64 (stub) VALUES ('a')"]);
  progress(`mariadb: ${version} PID ${maria.pid} on 127.0.0.1:${maria.port}; leaf_bench (leaf-ts) and leaf_bench_alt (id_autoinc InnoDB, tickets64 MyISAM) ready in ${Date.now() - started} ms`);
  return { version, leafUrl, altUrl };
}

/** Creates the `demo` tag (DB step 1000, as SQLite's default tag) through the admin API, then checks it serves. */
async function createMariaTag(server: Server): Promise<void> {
  const r = await fetch(`${server.base}/api/admin/tags`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ bizTag: TAG, step: 1000, description: 'npm run bench' }),
  });
  const text = await r.text();
  if (r.status !== 200 && r.status !== 201) throw new Error(`${server.name}: POST /api/admin/tags answered ${r.status}: ${text.slice(0, 200)}`);
  const started = Date.now();
  for (;;) {
    try {
      await probe(`${server.base}/api/id/segment/${TAG}`, 'seq');
      progress(`${server.name}: tag ${TAG} created (step 1000) and serving`);
      return;
    } catch (error) {
      if (Date.now() - started > 10_000) throw error;
      await sleep(200);
    }
  }
}

interface InProc {
  idsPerSec: number;
  callsPerSec: number;
  promiseReturns: number;
  step: number;
  ordered: boolean;
  loads: number;
  ids: number;
}
interface InProcSnowflake {
  mode: string;
  ids: number;
  idsPerSec: number;
  promiseReturns: number;
  notIncreasing: number;
  checked: number;
  duplicates: number;
}

/** An installed package's version (read from node_modules: some packages do not export their package.json). */
function pkgVersion(name: string): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
const sapphireVersion = pkgVersion('@sapphire/snowflake');
const redisClientVersion = pkgVersion('redis');
const mysql2Version = pkgVersion('mysql2');

async function measureInProcess(): Promise<void> {
  progress(
    `in-process: SegmentEngine over SqliteStore(':memory:'), tag step 1000; takeIds(tag, ${BATCH}) then nextId(tag); then SnowflakeGenerator.nextId() ` +
      `and @sapphire/snowflake ${sapphireVersion} generate(); ${INPROC_MS} ms each after 1 s warm-up (child process)`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'tools/bench/inProcess.ts'], {
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
  if (code !== 0) throw new Error(`tools/bench/inProcess.ts exited with ${code}`);
  const { take, next, snowflake } = JSON.parse(out.trim().split('\n').pop() as string) as { take: InProc; next: InProc; snowflake: InProcSnowflake[] };
  for (const [key, r, scenario] of [
    ['take', take, `in-process \`takeIds(tag, ${BATCH})\` (calls/s)`],
    ['nextId', next, 'in-process `nextId(tag)` (calls/s)'],
  ] as const) {
    if (!r.ordered) failures.push(`in-process ${key}: IDs not strictly increasing`);
    const check = `${r.ordered ? '✔' : '✘'} IDs increasing; ${r.promiseReturns} promise returns; step grew to ${r.step.toLocaleString('en-US')}`;
    const per1000 = (r.loads / r.ids) * 1000;
    rows.push({
      key, scenario, reqPerSec: r.callsPerSec, idsPerSec: r.idsPerSec, p50: NaN, p99: NaN, errors: null, non2xx: null,
      writesPer1000: per1000, writesCell: `${fmtSmall(per1000)} (${fmtInt(r.loads)} segment loads / ${fmtRate(r.ids)} IDs)`, cpuPerReqUs: NaN, cpuShare: null, check,
    });
    progress(`in-process ${key}: ${fmtRate(r.idsPerSec)} IDs/s (${check})`);
  }
  for (const r of snowflake) {
    const ours = r.mode === 'ours';
    const key = ours ? 'sf-ours' : 'sf-sapphire';
    const scenario = ours
      ? 'in-process snowflake: leaf-ts `SnowflakeGenerator.nextId()`'
      : `in-process snowflake: \`@sapphire/snowflake\` ${sapphireVersion} \`generate()\``;
    const clean = r.duplicates === 0 && r.notIncreasing === 0;
    // Our generator must never repeat; the library's repeats are a finding about it, reported, not a bench failure.
    if (ours && !clean) failures.push(`in-process snowflake: ${r.duplicates} duplicates, ${r.notIncreasing} IDs not above the one before`);
    const check =
      `${clean ? '✔' : ours ? '✘' : '⚠'} ${r.notIncreasing.toLocaleString('en-US')} IDs not above the one before (timed loop); ` +
      `${r.duplicates.toLocaleString('en-US')} duplicates in ${r.checked.toLocaleString('en-US')} IDs (separate pass, sorted); ${r.promiseReturns.toLocaleString('en-US')} promise returns` +
      (ours ? ' (4,096 per ms used up: waits for the next ms)' : '');
    rows.push({
      key, scenario, reqPerSec: r.idsPerSec, idsPerSec: r.idsPerSec, p50: NaN, p99: NaN, errors: null, non2xx: null,
      writesPer1000: 0, writesCell: '0 (no lease in-process)', cpuPerReqUs: NaN, cpuShare: null, check,
    });
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
/** Two significant digits for small values (writes per 1,000 IDs). */
function fmtSmall(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (n === 0) return '0';
  if (n >= 100) return fmtInt(n);
  return Number(n.toPrecision(2)).toString();
}
function fmtX(n: number): string {
  if (!Number.isFinite(n)) return '—';
  return n >= 100 ? `${fmtInt(n)}×` : n >= 10 ? `${n.toFixed(1)}×` : `${n.toFixed(2)}×`;
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
function idsRatio(a: string, b: string): number {
  const x = row(a);
  const y = row(b);
  return x && y ? x.idsPerSec / y.idsPerSec : NaN;
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
  loadEnd: string;
  maria: string;
  redis: string;
  duration: string;
  totalS: number;
}

const ALTS = [
  ['autoinc', 'auto-increment'],
  ['flickr', 'Flickr tickets'],
  ['redis', 'Redis INCR'],
  ['uuid', 'UUID'],
] as const;

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
    `${fmtX(ratio(`fast-${kind}`, `next-${kind}`))} plain Next` +
    (kind === 'single' ? `; ${fmtX(ratio('fast-single', 'const-next'))} constant Next route` : '') +
    `; server CPU/req ${cpuRatio(`fast-${kind}`, `bare-${kind}`).toFixed(2)}× bare's`;
  const vsAlts = (key: string, by: 'req' | 'ids') =>
    ALTS.map(([k, name]) => `${fmtX(by === 'req' ? ratio(key, k) : idsRatio(key, k))} ${name}`).join(', ');
  const ratioCell: Record<string, string> = {
    'fast-single': fastCell('single', vsBareSingle),
    'fast-batch': fastCell('batch', vsBareBatch),
    'maria-single': `${fmtX(ratio('maria-single', 'bare-single'))} bare; ${fmtX(ratio('maria-single', 'fast-single'))} SQLite; req/s vs ${vsAlts('maria-single', 'req')}`,
    'maria-batch': `${fmtX(ratio('maria-batch', 'bare-batch'))} bare; ${fmtX(ratio('maria-batch', 'fast-batch'))} SQLite; IDs/s vs ${vsAlts('maria-batch', 'ids')}`,
    'cluster-single': `${fmtX(ratio('cluster-single', 'fast-single'))} one process; ${fmtX(ratio('cluster-single', 'bare-single'))} bare (one process)`,
    'cluster-batch': `${fmtX(ratio('cluster-batch', 'fast-batch'))} one process; ${fmtX(ratio('cluster-batch', 'bare-batch'))} bare (one process)`,
    snowflake: `${fmtX(ratio('snowflake', 'bare-single'))} bare; ${fmtX(ratio('snowflake', 'fast-single'))} segment single`,
    'const-next': `fast lane single is ${fmtX(ratio('fast-single', 'const-next'))} this; plain Next single is ${fmtX(ratio('next-single', 'const-next'))} this`,
    take: `target ≥ 30 M IDs/s ${mark(takeOk)}`,
    'sf-ours': `${fmtX(idsRatio('sf-ours', 'sf-sapphire'))} @sapphire/snowflake`,
  };
  for (const [k] of ALTS) {
    ratioCell[k] =
      `leaf-ts ÷ this: MariaDB single ${fmtX(ratio('maria-single', k))}, SQLite single ${fmtX(ratio('fast-single', k))} (req/s); ` +
      `MariaDB \`?count=${BATCH}\` ${fmtX(idsRatio('maria-batch', k))} (IDs/s); server CPU per ID ${fmtX(cpuRatio(k, 'maria-single'))} leaf-ts MariaDB single's`;
  }
  const table = [
    '| # | Scenario | req/s | IDs/s | p50 ms | p99 ms | errors / non-2xx | DB writes per 1,000 IDs | server CPU µs/req | CPU % server / load gen / other | Ratio (target) | Check |',
    '|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|---|',
    ...rows.map(
      (r, i) =>
        `| ${i + 1} | ${r.scenario} | ${fmtInt(r.reqPerSec)} | ${fmtRate(r.idsPerSec)} | ${fmtMs(r.p50)} | ${fmtMs(r.p99)} | ` +
        `${r.errors === null ? '—' : `${r.errors} / ${r.non2xx}`} | ${r.writesCell} | ${fmtUs(r.cpuPerReqUs)} | ` +
        `${r.cpuShare === null ? '—' : `${pct(r.cpuShare.server)} / ${pct(r.cpuShare.gen)} / ${pct(r.cpuShare.other)}`} | ` +
        `${ratioCell[r.key] ?? ''} | ${r.check} |`,
    ),
  ];
  const keyRatios = [
    `- leaf-ts fast lane ÷ bare node:http ceiling: single ${ratio('fast-single', 'bare-single').toFixed(2)}×, \`?count=${BATCH}\` ${ratio('fast-batch', 'bare-batch').toFixed(2)}× (SQLite); ` +
      `MariaDB ${ratio('maria-single', 'bare-single').toFixed(2)}× / ${ratio('maria-batch', 'bare-batch').toFixed(2)}×.`,
    `- leaf-ts fast lane single ÷ constant Next route: ${fmtX(ratio('fast-single', 'const-next'))}; plain Next route handler ÷ constant Next route: ${ratio('next-single', 'const-next').toFixed(2)}×.`,
    `- leaf-ts on MariaDB, single, req/s ÷ each alternative: ${vsAlts('maria-single', 'req')}; with \`?count=${BATCH}\`, IDs/s ÷ each: ${vsAlts('maria-batch', 'ids')}.`,
    `- Server CPU per ID (with its database; steadier than req/s on a noisy machine), each alternative ÷ leaf-ts MariaDB single: ` +
      `${ALTS.map(([k, name]) => `${name} ${fmtX(cpuRatio(k, 'maria-single'))}`).join(', ')}; ÷ leaf-ts MariaDB \`?count=${BATCH}\` per ID: ` +
      `${ALTS.map(([k, name]) => `${name} ${fmtX((row(k)?.cpuPerReqUs ?? NaN) / ((row('maria-batch')?.cpuPerReqUs ?? NaN) / BATCH))}`).join(', ')}.`,
    `- DB writes per 1,000 IDs: leaf-ts MariaDB single ${fmtSmall(row('maria-single')?.writesPer1000 ?? NaN)}, \`?count=${BATCH}\` ${fmtSmall(row('maria-batch')?.writesPer1000 ?? NaN)}; ` +
      'auto-increment and Flickr 1,000 each (Redis: 1,000 in-memory writes; UUID: 0).',
    `- Both cores (LEAF_WORKERS=2) ÷ one process: single ${ratio('cluster-single', 'fast-single').toFixed(2)}×, \`?count=${BATCH}\` ${ratio('cluster-batch', 'fast-batch').toFixed(2)}× (the load generator shares the same 2 cores).`,
    `- Snowflake in-process: leaf-ts ${fmtRate(row('sf-ours')?.idsPerSec ?? NaN)} IDs/s vs @sapphire/snowflake ${sapphireVersion} ${fmtRate(row('sf-sapphire')?.idsPerSec ?? NaN)} IDs/s ` +
      `(${fmtX(idsRatio('sf-ours', 'sf-sapphire'))}); over HTTP ${fmtInt(row('snowflake')?.reqPerSec ?? NaN)} req/s.`,
  ];
  const md = [
    '# leaf-ts benchmark (`npm run bench`)',
    '',
    `- Date: ${meta.date}; whole run ${meta.totalS.toFixed(0)} s (bounded: hard cap ${HARD_CAP_MS / 60_000} min, servers and databases included)`,
    `- Node ${process.version} (${os.platform()} ${os.arch()}); CPU: ${meta.cpu}, ${meta.cores} cores; load average (1/5/15 min) at start: ${meta.load}; at the end: ${meta.loadEnd}`,
    `- Code: ${meta.git}; Next build: ${meta.build}`,
    `- Load generator: autocannon ${autocannonVersion}, run programmatically (\`require('autocannon')\`) inside the bench process, one thread, ` +
      `on the same machine: it shares the ${meta.cores} cores with the server under test (see the CPU column) — for the LEAF_WORKERS=2 rows too.`,
    `- Settings, identical for every HTTP row: ${CONNECTIONS} connections, pipelining ${PIPELINING}, keep-alive, 127.0.0.1; ` +
      `per row ${ROUNDS} run(s) × ${DURATION_S} s measured = ${ROUNDS * DURATION_S} s, each run after its own ${WARMUP_S} s warm-up (discarded)${meta.duration}. ` +
      'Rows are interleaved (single-ID rows, then batch rows; the next round in reverse order); all servers are up together, one is loaded at a time.',
    '- leaf-ts servers: `node --max-semi-space-size=64 --import tsx server.ts` (the flags of `npm start`, for every server) (NODE_ENV=production, LEAF_LOG_LEVEL=warn, ' +
      'LEAF_ADMIN_TOKEN set for /api/metrics, dynamic step). SQLite: a fresh temp file with the default `demo` tag, DB step 1000. ' +
      `MariaDB: DATABASE_URL to the bench's private mariadbd, tag \`demo\` created with step 1000 through POST /api/admin/tags. ` +
      'LEAF_WORKERS=2: node:cluster, each worker its own Leaf node (own segments, own snowflake worker id) on one fresh SQLite file. ' +
      'Plain Next = LEAF_FAST_LANE=off (with LEAF_BENCH_ROUTES=on, the same server answers the constant Next route `/api/bench/constant`, a route handler returning a constant body).',
    `- MariaDB: ${meta.maria}, private mariadbd from tools/harness/mariadb.ts (own datadir, 127.0.0.1, free port; innodb_flush_log_at_trx_commit=2, no binlog, 64 MB buffer pool), ` +
      `client mysql2 ${mysql2Version}. Redis: redis-server ${meta.redis} (Debian), private (127.0.0.1, free port, own temp dir, \`--save '' --appendonly no\`: no persistence), client \`redis\` (node-redis) ${redisClientVersion}, one connection.`,
    `- Alternatives (tools/bench/altServer.ts, bare node:http like the ceiling, same JSON shape \`{"tag":"demo","id":"…"}\`, one ID per request): ` +
      `auto-increment = \`INSERT INTO id_autoinc () VALUES ()\` per ID, InnoDB, autocommit; Flickr = \`REPLACE INTO tickets64 (stub) VALUES ('a')\` + \`SELECT LAST_INSERT_ID()\` on one pooled connection per pair, tickets64 MyISAM (REPLACE INTO deadlocks on InnoDB); ` +
      `both through a mysql2 pool of ${ALT_POOL} connections; Redis = \`INCR id:demo\`; UUID = \`crypto.randomUUID()\`.`,
    '- Ceilings: bare = `tools/bench/bareServer.ts` (node:http, same JSON shape, headers and writeHead/end, a counter); constant Next route = the cheapest Next route handler.',
    '- req/s = 2xx responses ÷ measured seconds; IDs/s = req/s × IDs per response; p50/p99 from a µs histogram of all 2xx response times of the row. ' +
      'server CPU µs/req = user+system CPU time (/proc/PID/stat) of the server process, its cluster workers and the database it uses (mariadbd, redis-server) ÷ 2xx responses: independent of the load generator. ' +
      'CPU % = share of all cores during the measured runs (other = the rest of the machine).',
    `- DB writes per 1,000 IDs: leaf-ts = segment loads (one UPDATE of leaf_alloc each) counted during the measured runs from /api/metrics (leaf_segment_loads_total, every worker) ÷ IDs × 1000; ` +
      'snowflake = its worker-id lease renewals (estimated from the lease period); auto-increment and Flickr = one row write per ID; Redis = one in-memory write per ID (no persistence); UUID = none.',
    `- In-process rows: calls/s in the req/s column; ${INPROC_MS / 1000} s after 1 s warm-up, in a child process (tools/bench/inProcess.ts); segment rows over SqliteStore(':memory:'); ` +
      `snowflake rows: leaf-ts's generator (no lease) and @sapphire/snowflake ${sapphireVersion} (a well-known npm snowflake library, from the discord.js ecosystem) in the same loop.`,
    '- Checks: every response 2xx with no socket errors; single-process sequential rows: a probe just before and just after each run must leave a gap of at least the number of IDs served; ' +
      `every HTTP row: up to ${SAMPLE_IDS_PER_RUN.toLocaleString('en-US')} IDs per run taken from the response bodies (autocannon verifyBody, spread over the run), well-formed and never repeated within the row; snowflake: IDs rise across runs.`,
    '',
    ...table,
    '',
    'Key ratios:',
    ...keyRatios,
    '',
    `Targets (from the issue): fast lane ≥ ${TARGET_VS_BARE}× bare node:http, single and batch; in-process take ≥ 30 M IDs/s — ` +
      `${missed.length === 0 ? 'all met.' : `MISSED: ${missed.join('; ')}.`}`,
    ...(rows.some((r) => r.cpuShare !== null && r.cpuShare.other > NOISY_OTHER_SHARE)
      ? [
          `Noise: rows marked ⚠ ran while other processes used more than ${pct(NOISY_OTHER_SHARE)} % of the machine; their req/s (and the ratios) understate the server. ` +
            'server CPU µs/req is the steadier comparison.',
        ]
      : []),
    ...((row('sf-sapphire')?.check ?? '').startsWith('⚠')
      ? [
          `@sapphire/snowflake: its 12-bit increment wraps instead of waiting for the next millisecond, so above 4,096 IDs per ms it repeats IDs (see its row); ` +
            "leaf-ts's generator waits (a promise), which caps it at 4,096 IDs per ms.",
        ]
      : []),
    `Correctness: ${failures.length === 0 ? 'all checks passed.' : `FAILED: ${failures.join('; ')}.`}`,
    '',
  ].join('\n');
  return { md, missed };
}

// ---- main -------------------------------------------------------------------------------------------------------

const CONSTANT_ROUTE_BUILD = path.join(ROOT, '.next', 'server', 'app', 'api', 'bench', 'constant', 'route.js');

async function ensureBuild(): Promise<string> {
  const buildId = path.join(ROOT, '.next', 'BUILD_ID');
  const nextDir = path.join(ROOT, '.next');
  // A `next build` started elsewhere (npm test, npm start) removes BUILD_ID until it finishes: wait for it, don't race it.
  if (!fs.existsSync(buildId) && fs.existsSync(nextDir) && Date.now() - fs.statSync(nextDir).mtimeMs < 120_000) {
    progress('build: .next/BUILD_ID missing but .next changed in the last 2 min (a build running elsewhere?); waiting up to 120 s');
    const until = Date.now() + 120_000;
    while (!fs.existsSync(buildId) && Date.now() < until) await sleep(1_000);
  }
  const lacksRoute = fs.existsSync(buildId) && !fs.existsSync(CONSTANT_ROUTE_BUILD);
  if (!fs.existsSync(buildId) || process.env.BENCH_REBUILD === '1' || lacksRoute) {
    progress(`build: ${lacksRoute ? '.next lacks app/api/bench/constant' : '.next/BUILD_ID missing (or BENCH_REBUILD=1)'}; running \`npx next build\` (counts against the 5-min cap)`);
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

/** Seconds the bench still needs after the HTTP rows: in-process child, stopping everything, writing; plus a margin. */
function tailSeconds(): number {
  return 4 * (1 + INPROC_MS / 1000) + 4 + 10 + 15;
}
/** Per run, besides warm-up and measurement: probes, /api/metrics scrapes, autocannon start. */
const RUN_OVERHEAD_S = 0.6;

/** Shortens the measured seconds per run, the same for every row, so that the rest of the run fits the hard cap. */
function planDuration(runs: number): string {
  const left = (HARD_CAP_MS - (Date.now() - t0)) / 1000 - tailSeconds();
  const fits = Math.floor((left / runs - WARMUP_S - RUN_OVERHEAD_S) * 2) / 2;
  const estimate = (d: number) => (Date.now() - t0) / 1000 + runs * (WARMUP_S + d + RUN_OVERHEAD_S) + tailSeconds() - 15;
  if (DURATION_FIXED) {
    const note = estimate(DURATION_S) * 1000 > HARD_CAP_MS ? `; WARNING: BENCH_DURATION=${DURATION_S} does not fit the ${HARD_CAP_MS / 60_000}-min cap` : '';
    progress(`plan: ${runs} runs × (${WARMUP_S} s warm-up + ${DURATION_S} s measured, BENCH_DURATION) ≈ ${estimate(DURATION_S).toFixed(0)} s in all${note}`);
    return ' (BENCH_DURATION)';
  }
  if (fits >= DEFAULT_DURATION_S) {
    progress(`plan: ${runs} runs × (${WARMUP_S} s warm-up + ${DURATION_S} s measured) ≈ ${estimate(DURATION_S).toFixed(0)} s in all, within the ${HARD_CAP_MS / 60_000}-min cap`);
    return '';
  }
  DURATION_S = Math.max(1, fits);
  progress(
    `plan: ${runs} runs would not fit ${HARD_CAP_MS / 60_000} min at ${DEFAULT_DURATION_S} s measured: shortened uniformly to ${DURATION_S} s per run for every row ` +
      `(≈ ${estimate(DURATION_S).toFixed(0)} s in all)`,
  );
  return ` (shortened uniformly from ${DEFAULT_DURATION_S} s to fit the ${HARD_CAP_MS / 60_000}-min cap)`;
}

async function main(): Promise<void> {
  const meta: Meta = {
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    load: os.loadavg().map((l) => l.toFixed(2)).join(' '),
    loadEnd: '',
    git: gitDescribe(),
    build: '',
    maria: '',
    redis: '',
    duration: '',
    totalS: 0,
  };
  progress(
    `leaf-ts bench (bounded: ≤ ${HARD_CAP_MS / 60_000} min in all, hard cap): ${CONNECTIONS} connections, pipelining ${PIPELINING}, ` +
      `per row ${ROUNDS} × (${WARMUP_S} s warm-up + ${DURATION_FIXED ? DURATION_S : `≤ ${DEFAULT_DURATION_S}`} s measured); ` +
      `${meta.cores}× ${meta.cpu}, node ${process.version}, load average ${meta.load}`,
  );
  meta.build = await ensureBuild();

  const db = await startMaria();
  meta.maria = `MariaDB ${db.version}`;
  redis = await startRedis(path.join(tmpDir, 'redis'), (line) => progress(line));
  meta.redis = redis.version;
  const mariaPid = maria?.pid;
  if (mariaPid === undefined) throw new Error('mariadbd has no PID');

  const [bare, fast, plain, mariaLeaf, cluster, autoinc, flickr, redisAlt, uuid] = await Promise.all([
    startServer('bare node:http', 'tools/bench/bareServer.ts', {}),
    leafServer('leaf-ts fast lane (SQLite)', {}),
    leafServer('plain Next (LEAF_FAST_LANE=off, LEAF_BENCH_ROUTES=on)', { LEAF_FAST_LANE: 'off', LEAF_BENCH_ROUTES: 'on' }),
    leafServer('leaf-ts fast lane (MariaDB)', { DATABASE_URL: db.leafUrl }, [mariaPid]),
    leafServer('leaf-ts fast lane (SQLite, LEAF_WORKERS=2)', { LEAF_WORKERS: '2' }),
    startServer('auto-increment (InnoDB)', 'tools/bench/altServer.ts', { ALT_MODE: 'autoinc', ALT_MYSQL_URL: db.altUrl, ALT_MYSQL_POOL: String(ALT_POOL) }, [mariaPid]),
    startServer('Flickr tickets (MyISAM)', 'tools/bench/altServer.ts', { ALT_MODE: 'flickr', ALT_MYSQL_URL: db.altUrl, ALT_MYSQL_POOL: String(ALT_POOL) }, [mariaPid]),
    startServer('Redis INCR', 'tools/bench/altServer.ts', { ALT_MODE: 'redis', ALT_REDIS_URL: redis.url }, redis.child.pid === undefined ? [] : [redis.child.pid]),
    startServer('crypto.randomUUID()', 'tools/bench/altServer.ts', { ALT_MODE: 'uuid' }),
  ]);
  const servers = [bare, fast, plain, mariaLeaf, cluster, autoinc, flickr, redisAlt, uuid];
  await createMariaTag(mariaLeaf);
  await waitForWorkers(cluster);

  const seg = `/api/id/segment/${TAG}`;
  const segBatch = `${seg}?count=${BATCH}`;
  const loads: Writes = { kind: 'loads' };
  const noStore = (note: string): Writes => ({ kind: 'none', note });
  const httpRows: Record<string, HttpRow> = {
    'fast-single': httpRow(fast, 'fast-single', 'leaf-ts fast lane, SQLite, `GET /api/id/segment/demo`', seg, 'seq', 'gap', loads),
    'fast-batch': httpRow(fast, 'fast-batch', `leaf-ts fast lane, SQLite, \`?count=${BATCH}\``, segBatch, 'batch', 'gap', loads),
    'maria-single': httpRow(mariaLeaf, 'maria-single', 'leaf-ts fast lane, MariaDB, single', seg, 'seq', 'gap', loads),
    'maria-batch': httpRow(mariaLeaf, 'maria-batch', `leaf-ts fast lane, MariaDB, \`?count=${BATCH}\``, segBatch, 'batch', 'gap', loads),
    'cluster-single': httpRow(cluster, 'cluster-single', 'leaf-ts LEAF_WORKERS=2 (both cores), SQLite, single', seg, 'seq', 'none', loads),
    'cluster-batch': httpRow(cluster, 'cluster-batch', `leaf-ts LEAF_WORKERS=2 (both cores), SQLite, \`?count=${BATCH}\``, segBatch, 'batch', 'none', loads),
    snowflake: httpRow(fast, 'snowflake', 'leaf-ts snowflake, fast lane, `GET /api/id/snowflake`', '/api/id/snowflake', 'snowflake', 'increasing', { kind: 'lease' }),
    autoinc: httpRow(autoinc, 'autoinc', 'alternative: MariaDB AUTO_INCREMENT, one `INSERT` per ID (InnoDB)', seg, 'seq', 'gap', { kind: 'fixed', per1000: 1000, note: 'one INSERT per ID' }),
    flickr: httpRow(flickr, 'flickr', 'alternative: Flickr ticket server, `REPLACE INTO` + `LAST_INSERT_ID()` (MyISAM)', seg, 'seq', 'gap', { kind: 'fixed', per1000: 1000, note: 'one REPLACE per ID' }),
    redis: httpRow(redisAlt, 'redis', 'alternative: Redis `INCR`', seg, 'seq', 'gap', { kind: 'fixed', per1000: 1000, note: 'one INCR per ID, in memory, no persistence' }),
    uuid: httpRow(uuid, 'uuid', 'alternative: `crypto.randomUUID()`', seg, 'uuid', 'none', { kind: 'fixed', per1000: 0, note: 'no store' }),
    'bare-single': httpRow(bare, 'bare-single', 'bare node:http ceiling, single', seg, 'seq', 'gap', noStore('no store')),
    'bare-batch': httpRow(bare, 'bare-batch', `bare node:http ceiling, \`?count=${BATCH}\``, segBatch, 'batch', 'gap', noStore('no store')),
    'const-next': httpRow(plain, 'const-next', 'constant Next route ceiling, `GET /api/bench/constant`', '/api/bench/constant', 'constant', 'none', noStore('no store')),
    'next-single': httpRow(plain, 'next-single', 'plain Next route handler, SQLite, single', seg, 'seq', 'gap', loads),
    'next-batch': httpRow(plain, 'next-batch', `plain Next route handler, SQLite, \`?count=${BATCH}\``, segBatch, 'batch', 'gap', loads),
  };
  const perGroup = [
    ['bare-single', 'fast-single', 'const-next', 'next-single', 'maria-single', 'cluster-single', 'snowflake', 'autoinc', 'flickr', 'redis', 'uuid'],
    ['bare-batch', 'fast-batch', 'next-batch', 'maria-batch', 'cluster-batch'],
  ];
  meta.duration = planDuration(Object.keys(httpRows).length * ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    for (const group of perGroup) {
      for (const key of round % 2 === 0 ? group : [...group].reverse()) await measureOnce(httpRows[key], round);
    }
  }
  await Promise.all(
    servers.map(async (s) => {
      if (s.child.exitCode !== null || s.child.signalCode !== null) failures.push(`${s.name} exited during the run`);
      if (s.logLines > 0) progress(`${s.name}: ${s.logLines} log lines at warn or above; last:\n${s.tail.join('\n')}`);
      await stopServer(s);
    }),
  );
  await redis.stop();
  if (maria !== null) {
    const pid = maria.pid;
    await maria.destroy();
    maria = null;
    progress(`mariadb: stopped PID ${pid}`);
  }
  for (const key of Object.keys(httpRows)) rows.push(finishHttpRow(httpRows[key]));

  await measureInProcess();

  meta.loadEnd = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  meta.totalS = (Date.now() - t0) / 1000;
  const { md, missed } = render(meta);
  fs.writeFileSync(RESULTS_FILE, md);
  console.log('\n' + md);
  progress(`wrote ${path.relative(ROOT, RESULTS_FILE)}; total ${((Date.now() - t0) / 1000).toFixed(1)} s (cap ${HARD_CAP_MS / 60_000} min); load average now ${meta.loadEnd}`);
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
