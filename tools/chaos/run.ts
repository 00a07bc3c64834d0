/**
 * Chaos suite: `tsx tools/chaos/run.ts [--size small|full] [--seed N] [--keep-logs]`.
 *
 * A private MariaDB (tools/harness/mariadb.ts), one tag with a small DB step, three leaf-ts nodes (server.ts, each
 * with its own LEAF_NODE_ID and port), each behind its own fault-injecting TCP proxy to MariaDB (tools/chaos/proxy.ts).
 * Paced client loops load the segment routes (single, ?count=N, Leaf plain text) and snowflake across the nodes
 * while the harness runs, in order:
 *
 *   warmup    steps grow (dynamic step doubles per load)
 *   baseline  fast DB: p99 of the client requests
 *   slow      every DB → node chunk held 200 ms–2 s at random: p99 must stay within max(5 × baseline p99, 100 ms),
 *             and no request may find both segments empty (the engine's `waits`, read from the admin API)
 *   kills     SIGKILL a random node at random moments, restart it on the same port; proxy connection cuts between
 *   outage    MariaDB stopped (SIGTERM, a real stop) past the nodes' buffers: they serve from memory, then answer
 *             503 JSON; MariaDB started again on the same port and datadir: every node serves again by itself
 *   tail      normal load
 *
 * Then the checks (any violation → exit code 1): no duplicate ID (segment and snowflake separately, over every
 * node and lifetime); per node, IDs increase in real time (a request sent after an answer arrived gets higher IDs,
 * across restarts too); every batch strictly increasing; no 5xx but 503, no 4xx, every error JSON; no client
 * timeout (3 s) and no connection error except to a node being killed; segment 503s only during the outage (or
 * right after a proxy cut); each node served from its buffers during the outage, then answered 503, and recovered
 * within the bound; /api/health always 200; no ID above the row's max_id; no node died unasked.
 *
 * MariaDB is stopped for real (SIGTERM, the process exits; then started again on the same datadir and port) rather
 * than frozen with SIGSTOP: a stop drops every pooled connection and refuses reconnects, so each node's pool must
 * notice dead connections and reconnect to a new server process by itself. A freeze only exercises timeouts, which
 * the slow-DB phase (and test/integration/outage.test.ts, which does SIGSTOP) already cover.
 *
 * Progress goes to stdout as it happens; the last line is the summary. The budget (small 115 s, full 290 s) excludes
 * a first-time `apt-get install mariadb-server`; past budget + 30 s the process exits no matter what.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { MysqlStore } from '../../lib/store/mysql';
import { MariadbServer, ensureMariadb, freePort, rng } from '../harness';
import { percentile, realTimeOrder, segmentDuplicates, snowflakeDuplicates } from './checks';
import { Load, now } from './load';
import { type LogEvent, LeafNode } from './node';
import { ChaosProxy } from './proxy';
import { type FailRecord, type Kind, MEASURED_KINDS, Recorder, SEGMENT_KINDS } from './record';

const REPO_ROOT = path.resolve(__dirname, '../..');
const TAG = 'chaos';
const DB_STEP = 200;
const NODES = 3;
const CLIENT_TIMEOUT_MS = 3_000;
const LATENCY = { minMs: 200, maxMs: 2_000 };
const P99_FACTOR = 5;
/**
 * Absolute floor of the slow-DB p99 bound. Any request that waited for a DB round trip takes at least the smallest
 * injected delay (200 ms), so a bound anywhere below 200 ms separates "waited on the DB" from "did not"; half of it
 * keeps a 2× margin both from that and from the scheduler noise of a shared 2-core box (baseline p99 10–40 ms).
 * The engine's own `waits` counter (requests that found both segments empty) is checked too: it must not move.
 */
const P99_FLOOR_MS = 100;
const ADMIN_TOKEN = `chaos-${randomBytes(12).toString('hex')}`;
const SNOWFLAKE_OK_503 = new Set(['snowflake_unavailable', 'clock_moved_backwards', 'not_ready']);
const SEGMENT_OK_503 = new Set(['store_unavailable', 'segment_unavailable', 'not_ready']);

interface Size {
  budgetS: number;
  loops: number;
  ratePerLoop: number;
  churnPerNode: number;
  warmupS: number;
  baselineS: number;
  slowS: number;
  kills: number;
  cuts: number;
  actionGapS: [number, number];
  outageMinS: number;
  outageMaxS: number;
  recoveryBoundS: number;
  tailS: number;
}

const SIZES: Record<'small' | 'full', Size> = {
  small: {
    budgetS: 115,
    loops: 8,
    ratePerLoop: 120,
    churnPerNode: 6,
    warmupS: 6,
    baselineS: 8,
    slowS: 10,
    kills: 3,
    cuts: 1,
    actionGapS: [1, 3],
    outageMinS: 12,
    outageMaxS: 25,
    recoveryBoundS: 15,
    tailS: 4,
  },
  full: {
    budgetS: 290,
    loops: 16,
    ratePerLoop: 100,
    churnPerNode: 6,
    warmupS: 10,
    baselineS: 30,
    slowS: 45,
    kills: 10,
    cuts: 4,
    actionGapS: [1, 5],
    outageMinS: 20,
    outageMaxS: 40,
    recoveryBoundS: 15,
    tailS: 20,
  },
};

function parseArgs(argv: string[]): { size: 'small' | 'full'; seed: number; keepLogs: boolean } {
  let size: 'small' | 'full' = 'small';
  let seed = Number.parseInt(randomBytes(4).toString('hex'), 16);
  let keepLogs = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (name: string) => {
      const eq = a.indexOf('=');
      if (eq !== -1) return a.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      return v;
    };
    if (a === '--size' || a.startsWith('--size=')) {
      const v = value('--size');
      if (v !== 'small' && v !== 'full') throw new Error(`--size must be small or full (got ${v})`);
      size = v;
    } else if (a === '--seed' || a.startsWith('--seed=')) {
      seed = Number(value('--seed'));
      if (!Number.isSafeInteger(seed)) throw new Error('--seed must be an integer');
    } else if (a === '--keep-logs') {
      keepLogs = true;
    } else {
      throw new Error(`unknown argument ${a} (usage: tsx tools/chaos/run.ts [--size small|full] [--seed N] [--keep-logs])`);
    }
  }
  return { size, seed, keepLogs };
}

class BudgetExceeded extends Error {}

const fmt = (ms: number) => (ms / 1000).toFixed(1);

async function main(): Promise<number> {
  const { size: sizeName, seed, keepLogs } = parseArgs(process.argv.slice(2));
  const size = SIZES[sizeName];
  ensureMariadb((line) => process.stdout.write(`[chaos] ${line}\n`)); // may apt-get install once; not part of the budget
  const random = rng(seed); // seeded, so a run's choices (victims, moments, delays, request mix) replay
  const rand = (lo: number, hi: number) => lo + random() * (hi - lo);
  const t0 = now();
  const deadline = t0 + size.budgetS * 1000;
  const say = (line: string) => process.stdout.write(`[chaos +${fmt(now() - t0)}s] ${line}\n`);
  const violations: string[] = [];
  const violate = (v: string) => {
    violations.push(v);
    say(`VIOLATION: ${v}`);
  };

  if (!fs.existsSync(path.join(REPO_ROOT, '.next', 'BUILD_ID'))) {
    process.stderr.write('chaos: no Next build found (.next/BUILD_ID); run `npx next build` first\n');
    return 2;
  }

  const runId = randomBytes(6).toString('hex');
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `leaf-chaos-${runId}-`));
  say(`size=${sizeName} seed=${seed} budget=${size.budgetS}s logs=${runDir}`);

  // Past the budget (plus teardown time), stop no matter what: the exit hooks SIGKILL the nodes and mariadbd.
  const hardStop = setTimeout(() => {
    process.stdout.write(`chaos: hard time limit (${size.budgetS + 30}s) hit, aborting: FAIL\n`);
    process.exit(3);
  }, (size.budgetS + 30) * 1000);
  hardStop.unref();

  const sleep = async (ms: number) => {
    const left = deadline - now();
    if (left <= 0) throw new BudgetExceeded();
    await new Promise((r) => setTimeout(r, Math.min(ms, left)));
    if (now() >= deadline) throw new BudgetExceeded();
  };

  let db: MariadbServer | null = null;
  const proxies: ChaosProxy[] = [];
  const nodes: LeafNode[] = [];
  const rec = new Recorder();
  let load: Load | null = null;
  let status: ReturnType<typeof setInterval> | null = null;
  const logEvents: LogEvent[] = [];
  const phases: Record<string, { from: number; to: number }> = {};
  const cuts: number[] = [];
  const kills: Array<{ node: string; at: number; restartMs: number }> = [];
  let outage: { stopAt: number; downAt: number; startAt: number; backAt: number } | null = null;
  let tearingDown = false;
  let slowWaits: number[] = [];
  const stalls = new StallMonitor(25);
  stalls.start();

  const phase = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const from = now();
    say(`phase ${name}: begin`);
    try {
      return await fn();
    } finally {
      phases[name] = { from, to: now() };
      say(`phase ${name}: end (${fmt(now() - from)}s)`);
    }
  };

  let exitCode = 1;
  let summary = '';
  try {
    // ---- setup
    db = await MariadbServer.create({ log: (l) => say(`mariadb: ${l}`) });
    const url = await db.createAppUser('leaf_chaos', 'chaos');
    const setupStore = await MysqlStore.open({ url, connectionLimit: 1 });
    await setupStore.createTag({ bizTag: TAG, step: DB_STEP, description: 'chaos harness' });
    await setupStore.close();
    say(`tag "${TAG}" created with step ${DB_STEP} on MariaDB pid ${db.pid} port ${db.port}`);

    for (let i = 0; i < NODES; i++) {
      const proxy = new ChaosProxy(`p${i + 1}`, db.port, random);
      await proxy.listen();
      proxies.push(proxy);
      const dbUrl = new URL(url);
      dbUrl.port = String(proxy.port);
      const name = `n${i + 1}`;
      nodes.push(
        new LeafNode({
          name,
          port: await freePort(),
          repoRoot: REPO_ROOT,
          runId,
          logFile: path.join(runDir, `${name}.log`),
          env: {
            DATABASE_URL: dbUrl.toString(),
            LEAF_NODE_ID: `chaos-${name}`,
            LEAF_ADMIN_TOKEN: ADMIN_TOKEN,
            LEAF_LOG_LEVEL: 'info',
          },
          onLog: (e) => {
            logEvents.push(e);
            if (e.event === 'unexpected_error' || e.event === 'admin_route_failed') say(`${e.node}: ${e.event} ${JSON.stringify(e.fields).slice(0, 300)}`);
          },
          onUnexpectedExit: (n, code, signal) => {
            if (!tearingDown) violate(`${n.name} exited unasked (code ${code}, signal ${signal}):\n${n.logTail(15)}`);
          },
        }),
      );
    }
    const startups = await Promise.all(nodes.map((n) => n.start()));
    say(`nodes up: ${nodes.map((n, i) => `${n.name} :${n.port} via proxy :${proxies[i].port} (${startups[i]} ms)`).join(', ')}`);

    load = new Load({ nodes, recorder: rec, tag: TAG, timeoutMs: CLIENT_TIMEOUT_MS, random });
    load.startClients(size.loops, size.ratePerLoop);
    load.startChurn(size.churnPerNode);
    load.startHealth(500);
    let last = { ...load.counters };
    const l = load;
    status = setInterval(() => {
      const c = l.counters;
      const d = (k: keyof typeof c) => c[k] - last[k];
      say(
        `  load: ${Math.round(d('sent') / 5)} req/s, last 5 s: 200=${d('ok')} 503=${d('s503')} other=${d('other')} ` +
          `conn-errors=${d('connErrors')} timeouts=${d('timeouts')}; ids so far segment=${rec.segIds} snowflake=${rec.snowCount}; ` +
          `nodes ${nodes.map((n) => `${n.name}:${n.state}`).join(' ')}`,
      );
      last = { ...c };
    }, 5_000);
    status.unref();

    // ---- phases
    await phase('warmup', () => sleep(size.warmupS * 1000));
    await phase('baseline', () => sleep(size.baselineS * 1000));

    const before = await Promise.all(nodes.map((n) => engineStats(n.port)));
    await phase('slow', async () => {
      for (const p of proxies) p.setLatency(LATENCY);
      say(`proxies: DB → node chunks delayed ${LATENCY.minMs}–${LATENCY.maxMs} ms`);
      await sleep(size.slowS * 1000);
      for (const p of proxies) p.setLatency(null);
      say(`proxies: latency off (max delay applied ${Math.max(...proxies.map((p) => p.stats.maxDelayMs))} ms)`);
    });
    await sleep(3_000); // held chunks drain (≤ 2 s)
    const after = await Promise.all(nodes.map((n) => engineStats(n.port)));
    slowWaits = after.map((a, i) => (a.buffered < 0 || before[i].buffered < 0 ? NaN : a.waits - before[i].waits));
    say(`engine waits during the slow DB (requests that found both segments empty): ${nodes.map((n, i) => `${n.name}=${slowWaits[i]}`).join(' ')}`);

    await phase('kills', async () => {
      const actions = [...Array<'kill'>(size.kills).fill('kill'), ...Array<'cut'>(size.cuts).fill('cut')];
      for (let i = actions.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [actions[i], actions[j]] = [actions[j], actions[i]];
      }
      for (const action of actions) {
        await sleep(rand(size.actionGapS[0], size.actionGapS[1]) * 1000);
        if (action === 'cut') {
          cuts.push(now());
          const n = proxies.reduce((s, p) => s + p.cutAll(), 0);
          say(`cut: all ${n} proxied DB connections destroyed`);
          continue;
        }
        const victim = nodes[Math.floor(random() * nodes.length)];
        const at = now();
        await victim.kill();
        say(`kill: SIGKILL ${victim.name} (life ${victim.life})`);
        await sleep(rand(0, 1_000));
        const ms = await victim.start();
        kills.push({ node: victim.name, at, restartMs: ms });
        say(`kill: ${victim.name} restarted as life ${victim.life}, healthy after ${ms} ms (down ${fmt(now() - at)}s)`);
      }
    });

    await phase('outage', async () => {
      const server = db as MariadbServer;
      // A node restarted a moment ago may not hold a segment yet: the outage starts once every node has one.
      let buffers = (await Promise.all(nodes.map((n) => engineStats(n.port)))).map((e) => e.buffered);
      for (const waitUntil = now() + 10_000; buffers.some((b) => b <= 0) && now() < waitUntil; ) {
        await sleep(250);
        buffers = (await Promise.all(nodes.map((n) => engineStats(n.port)))).map((e) => e.buffered);
      }
      say(`buffers before the outage: ${nodes.map((n, i) => `${n.name}=${buffers[i]}`).join(' ')} IDs`);
      const stopAt = now();
      await server.stop();
      const downAt = now();
      say(`mariadbd stopped (SIGTERM, ${fmt(downAt - stopAt)}s); nodes serve from their buffers`);
      const exhaustedAt: Array<number | null> = nodes.map(() => null);
      let scanned = rec.fails.length;
      const scan = () => {
        for (; scanned < rec.fails.length; scanned++) {
          const f = rec.fails[scanned];
          if (f.status === 503 && SEGMENT_KINDS.has(f.kind) && f.sendT >= downAt && exhaustedAt[f.node] === null) {
            exhaustedAt[f.node] = f.recvT;
            say(`${nodes[f.node].name}: buffers used up, answering 503 ${f.code} (${fmt(f.recvT - downAt)}s into the outage)`);
          }
        }
      };
      let drained = false;
      for (;;) {
        await sleep(200);
        scan();
        const elapsed = now() - downAt;
        // Let plain client traffic eat the buffers for 2 s, then drain the rest in batches of 10,000.
        if (!drained && elapsed >= 2_000) {
          drained = true;
          nodes.forEach((_, i) => void load?.drain(i, () => exhaustedAt[i] !== null));
        }
        const all = exhaustedAt.every((t) => t !== null);
        const lastExhausted = Math.max(...exhaustedAt.map((t) => t ?? Infinity));
        if (all && elapsed >= size.outageMinS * 1000 && now() - lastExhausted >= 2_000) break;
        if (elapsed >= size.outageMaxS * 1000) {
          exhaustedAt.forEach((t, i) => {
            if (t === null) violate(`${nodes[i].name} still served segment IDs after ${size.outageMaxS}s of outage: the outage did not outlast its buffers`);
          });
          break;
        }
      }
      const startAt = now();
      await server.start();
      const backAt = now();
      outage = { stopAt, downAt, startAt, backAt };
      say(`mariadbd started again after ${fmt(startAt - downAt)}s down (ready in ${fmt(backAt - startAt)}s)`);
      // Recovery: each node must serve segment and snowflake IDs again, by itself.
      const bound = backAt + size.recoveryBoundS * 1000;
      for (;;) {
        const pending = nodes.filter((_, i) => firstOkAfter(rec, i, startAt, true) === null || firstOkAfter(rec, i, startAt, false) === null);
        if (pending.length === 0) break;
        if (now() > bound) {
          for (const n of pending) violate(`${n.name} did not recover within ${size.recoveryBoundS}s of MariaDB being back`);
          break;
        }
        await sleep(100);
      }
    });

    await phase('tail', () => sleep(size.tailS * 1000));
  } catch (error) {
    if (error instanceof BudgetExceeded) violate(`time budget of ${size.budgetS}s exceeded`);
    else violate(`harness error: ${(error as Error).stack ?? String(error)}`);
  } finally {
    if (status !== null) clearInterval(status);
    tearingDown = true;
    if (load !== null) await load.stop();
    say('load stopped; checking');
    try {
      summary = await analyse();
    } catch (error) {
      violate(`analysis failed: ${(error as Error).stack ?? String(error)}`);
      summary = `chaos: analysis failed: FAIL`;
    }
    await Promise.all(nodes.map((n) => n.stop().catch(() => undefined)));
    nodes.forEach((n) => n.close());
    await Promise.all(proxies.map((p) => p.close()));
    if (db !== null) await db.destroy().catch(() => undefined);
    exitCode = violations.length === 0 ? 0 : 1;
    if (exitCode === 0 && !keepLogs) fs.rmSync(runDir, { recursive: true, force: true });
    else say(`node logs kept in ${runDir}`);
    process.stdout.write(summary.replace(/: (PASS|FAIL)$/, '') + `: ${exitCode === 0 ? 'PASS' : `FAIL (${violations.length} violations)`}\n`);
    clearTimeout(hardStop);
  }
  return exitCode;

  async function analyse(): Promise<string> {
    const names = nodes.map((n) => n.name);
    const segDup = segmentDuplicates(rec);
    const snowDup = snowflakeDuplicates(rec);
    if (segDup.duplicates > 0) violate(`${segDup.duplicates} duplicate segment IDs: ${segDup.examples.join('; ')}`);
    if (snowDup.duplicates > 0) violate(`${snowDup.duplicates} duplicate snowflake IDs: ${snowDup.examples.join('; ')}`);
    const segOrder = realTimeOrder(rec.ok, SEGMENT_KINDS, names);
    const snowOrder = realTimeOrder(rec.ok, new Set(['snow', 'snowN']), names);
    say(
      `uniqueness: ${rec.segRanges.length / 2} segment ranges and ${rec.snowIds.length} snowflake IDs compared; ` +
        `real-time order per node checked for ${segOrder.checked} segment and ${snowOrder.checked} snowflake answers`,
    );
    if (segOrder.violations > 0) violate(`${segOrder.violations} segment answers below an earlier answer of the same node: ${segOrder.examples.join('; ')}`);
    if (snowOrder.violations > 0) violate(`${snowOrder.violations} snowflake answers below an earlier answer of the same node: ${snowOrder.examples.join('; ')}`);
    if (rec.badCount > 0) violate(`${rec.badCount} malformed or unordered 200 answers: ${rec.badAnswers.slice(0, 5).join('; ')}`);

    // Errors.
    // A request waiting on a load when MariaDB went down fails because of the outage even if it was sent before.
    const inOutage = (f: FailRecord) => outage !== null && f.recvT >= outage.stopAt && f.sendT <= outage.backAt + size.recoveryBoundS * 1000;
    const afterCut = (f: FailRecord) => cuts.some((c) => f.recvT >= c && f.sendT <= c + 3_000);
    let n5xx = 0;
    let n503 = 0;
    let timeouts = 0;
    let excusedConn = 0;
    const badConn: FailRecord[] = [];
    const unexpected503: FailRecord[] = [];
    const codes = new Map<string, number>();
    const other: FailRecord[] = [];
    for (const f of rec.fails) {
      if (f.status === 0) {
        if (f.nodeWasDown) excusedConn++;
        else if (f.code === 'timeout') timeouts++;
        else badConn.push(f);
        continue;
      }
      const key = `${f.status} ${f.code || '(no code)'}${SEGMENT_KINDS.has(f.kind) ? '' : ' [snowflake]'}`;
      codes.set(key, (codes.get(key) ?? 0) + 1);
      if (f.status === 503) {
        n503++;
        const allowed = SEGMENT_KINDS.has(f.kind) ? SEGMENT_OK_503 : SNOWFLAKE_OK_503;
        if (!f.jsonOk || !allowed.has(f.code)) other.push(f);
        else if (SEGMENT_KINDS.has(f.kind) && !inOutage(f) && !afterCut(f)) unexpected503.push(f);
      } else {
        if (f.status >= 500) n5xx++;
        other.push(f);
      }
    }
    const show = (list: FailRecord[]) =>
      list
        .slice(0, 5)
        .map((f) => `${names[f.node]} life ${f.life} ${f.kind} → ${f.status} ${f.code} ${f.body.slice(0, 150)} at +${fmt(f.sendT - t0)}s`)
        .join('; ');
    if (timeouts > 0) violate(`${timeouts} requests hit the ${CLIENT_TIMEOUT_MS} ms client timeout`);
    if (badConn.length > 0) violate(`${badConn.length} connection errors to nodes that were up: ${show(badConn)}`);
    if (other.length > 0) violate(`${other.length} answers other than 200 / 503-with-an-expected-JSON-code (5xx: ${n5xx}): ${show(other)}`);
    if (unexpected503.length > 0) violate(`${unexpected503.length} segment 503s outside the outage: ${show(unexpected503)}`);
    say(`errors by status and code: ${[...codes].map(([k, v]) => `${k}: ${v}`).join(', ') || 'none'}; ` + `connection errors to nodes being killed: ${excusedConn}`);

    // Latency.
    if (keepLogs) {
      const lines = ['kind,node,life,sendMs,latencyMs,status'];
      for (const r of rec.ok) if (MEASURED_KINDS.has(r.kind)) lines.push(`${r.kind},${r.node},${r.life},${(r.sendT - t0).toFixed(1)},${(r.recvT - r.sendT).toFixed(2)},200`);
      for (const f of rec.fails) lines.push(`${f.kind},${f.node},${f.life},${(f.sendT - t0).toFixed(1)},${(f.recvT - f.sendT).toFixed(2)},${f.status} ${f.code}`);
      fs.writeFileSync(path.join(runDir, 'requests.csv'), lines.join('\n') + '\n');
      fs.writeFileSync(path.join(runDir, 'phases.json'), JSON.stringify({ t0, phases, cuts, kills, outage, stalls: stalls.stalls }, null, 1));
    }
    stalls.stop();
    let excluded = 0;
    const lat = (w: { from: number; to: number } | undefined): number[] => {
      if (w === undefined) return [];
      const out: number[] = [];
      const add = (r: { kind: Kind; sendT: number; recvT: number }) => {
        if (!MEASURED_KINDS.has(r.kind) || r.sendT < w.from || r.sendT > w.to) return;
        if (stalls.overlaps(r.sendT, r.recvT)) excluded++;
        else out.push(r.recvT - r.sendT);
      };
      rec.ok.forEach(add);
      rec.fails.forEach(add);
      return out;
    };
    const fastLat = lat(phases.baseline);
    const slowLat = lat(phases.slow);
    const inWindows = (w: { from: number; to: number } | undefined) => (w === undefined ? [] : stalls.stalls.filter((x) => x.to >= w.from && x.from <= w.to));
    const windowStalls = [...inWindows(phases.baseline), ...inWindows(phases.slow)];
    say(
      `harness stalls > 25 ms during the latency windows: ${windowStalls.length} (longest ${Math.max(0, ...windowStalls.map((x) => x.to - x.from)).toFixed(0)} ms); ` +
        `${excluded} requests in flight during one left out of the p99s`,
    );
    const p99Fast = percentile(fastLat, 99);
    const p99Slow = percentile(slowLat, 99);
    const bound = Math.max(P99_FACTOR * p99Fast, P99_FLOOR_MS);
    const slowLoads = phases.slow
      ? logEvents.filter((e) => e.event === 'segment_loaded' && e.at >= phases.slow.from && e.at <= phases.slow.to + 3_000 && Number(e.fields.durationMs) >= LATENCY.minMs * 0.9)
      : [];
    if (phases.slow !== undefined) {
      say(
        `latency: baseline p50 ${percentile(fastLat, 50).toFixed(1)} p99 ${p99Fast.toFixed(1)} max ${Math.max(...fastLat).toFixed(0)} ms (${fastLat.length} req); ` +
          `slow DB p50 ${percentile(slowLat, 50).toFixed(1)} p99 ${p99Slow.toFixed(1)} max ${Math.max(...slowLat).toFixed(0)} ms (${slowLat.length} req); bound ${bound.toFixed(1)} ms; ` +
          `segment loads through the slow proxy: ${slowLoads.length} (${slowLoads.map((e) => `${e.node} ${e.fields.durationMs}ms step ${e.fields.step}`).join(', ')})`,
      );
      if (!(p99Slow <= bound)) violate(`slow-DB p99 ${p99Slow.toFixed(1)} ms above max(${P99_FACTOR} × baseline p99 ${p99Fast.toFixed(1)} ms, ${P99_FLOOR_MS} ms)`);
      if (slowLoads.length === 0) violate('no segment load went through the slow proxy: the slow phase tested nothing');
      const waits = slowWaits.reduce((a, b) => a + b, 0);
      if (!(waits === 0)) violate(`with the slow DB, ${waits} requests found both segments empty and waited for a load (loads did not run ahead)`);
    }

    // Outage.
    let servedFromBuffer = 0;
    let outageS = 0;
    let recoveryS = 0;
    const o = outage as { stopAt: number; downAt: number; startAt: number; backAt: number } | null;
    if (o !== null) {
      outageS = (o.startAt - o.downAt) / 1000;
      const served = nodes.map((_, i) =>
        rec.ok.reduce((s, r) => (r.node === i && SEGMENT_KINDS.has(r.kind) && r.sendT >= o.downAt && r.recvT <= o.startAt ? s + r.n : s), 0),
      );
      const snowServed = nodes.map((_, i) =>
        rec.ok.reduce((s, r) => (r.node === i && !SEGMENT_KINDS.has(r.kind) && r.sendT >= o.downAt && r.recvT <= o.startAt ? s + r.n : s), 0),
      );
      servedFromBuffer = served.reduce((a, b) => a + b, 0);
      const outage503 = rec.fails.filter((f) => f.status === 503 && f.sendT >= o.downAt && f.recvT <= o.startAt);
      served.forEach((n, i) => {
        if (n === 0) violate(`${names[i]} served no segment ID from its buffers during the outage`);
        if (!outage503.some((f) => f.node === i && SEGMENT_KINDS.has(f.kind))) violate(`${names[i]} never answered 503 during the outage`);
      });
      const recov = nodes.map((_, i) => {
        const seg = firstOkAfter(rec, i, o.startAt, true);
        const snow = firstOkAfter(rec, i, o.startAt, false);
        return { seg: seg === null ? NaN : Math.max(0, seg - o.backAt), snow: snow === null ? NaN : Math.max(0, snow - o.backAt) };
      });
      recoveryS = Math.max(...recov.map((r) => Math.max(r.seg, r.snow))) / 1000;
      say(
        `outage: ${outageS.toFixed(1)}s down; served from buffers: ${served.map((n, i) => `${names[i]}=${n}`).join(' ')} segment IDs, ` +
          `${snowServed.map((n, i) => `${names[i]}=${n}`).join(' ')} snowflake IDs; 503s during it: ${outage503.length}; ` +
          `recovery after MariaDB was back (segment/snowflake): ${recov.map((r, i) => `${names[i]}=${fmt(r.seg)}s/${fmt(r.snow)}s`).join(' ')}`,
      );
    }

    // Health, logs, final row.
    const h = load?.health;
    if (h !== undefined) {
      say(`health: ${h.probes} probes, ${h.ok} ok (${h.degraded} degraded), ${h.failures.length} failures`);
      if (h.failures.length > 0) {
        violate(`/api/health failed ${h.failures.length} times: ${h.failures.slice(0, 5).map((f) => `${f.node} ${f.status} ${f.detail}`).join('; ')}`);
      }
    }
    const events = new Map<string, number>();
    for (const e of logEvents) if (e.level === 'warn' || e.level === 'error') events.set(`${e.level} ${e.event}`, (events.get(`${e.level} ${e.event}`) ?? 0) + 1);
    say(`node warnings/errors logged: ${[...events].map(([k, v]) => `${k}: ${v}`).join(', ') || 'none'}`);
    const regressed = logEvents.filter((e) => e.event === 'segment_load_failed' && e.fields.code === 'segment_regressed');
    if (regressed.length > 0) violate(`${regressed.length} segment_regressed loads (the row went backwards)`);
    const unexpected = logEvents.filter((e) => e.event === 'unexpected_error' || e.event === 'admin_route_failed');
    if (unexpected.length > 0) violate(`${unexpected.length} unexpected_error log lines`);
    const loads = logEvents.filter((e) => e.event === 'segment_loaded');
    const maxStep = Math.max(0, ...loads.map((e) => Number(e.fields.step)));
    say(`segment loads: ${loads.length}, largest step ${maxStep}; startups ${nodes.map((n) => `${n.name}=${n.startupsMs.join('/')}ms`).join(' ')}`);

    let maxIssued = 0;
    for (const r of rec.ok) if (SEGMENT_KINDS.has(r.kind) && (r.max as number) > maxIssued) maxIssued = r.max as number;
    if (db !== null && db.isRunning) {
      const conn = await mysql.createConnection({ ...db.rootOptions, database: 'leaf_chaos' });
      try {
        const [rows] = await conn.query('SELECT max_id FROM leaf_alloc WHERE biz_tag = ?', [TAG]);
        const maxId = Number((rows as Array<{ max_id: unknown }>)[0]?.max_id);
        say(`leaf_alloc max_id ${maxId}, highest segment ID issued ${maxIssued}`);
        if (!(maxIssued <= maxId)) violate(`an issued ID (${maxIssued}) is above the row's max_id (${maxId})`);
      } finally {
        await conn.end();
      }
    }

    const segTotal = rec.segIds;
    const snowTotal = rec.snowCount;
    const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
    return (
      `chaos: ids=${segTotal + snowTotal} (segment ${segTotal}, snowflake ${snowTotal}) duplicates=${segDup.duplicates + snowDup.duplicates} ` +
      `order-violations=${segOrder.violations + snowOrder.violations} kills=${kills.length} cuts=${cuts.length} outage=${outageS.toFixed(1)}s ` +
      `served-from-buffer=${servedFromBuffer} recovery=${Number.isFinite(recoveryS) ? recoveryS.toFixed(1) : 'n/a'}s ids 503s=${n503} 500s=${n5xx} ` +
      `timeouts=${timeouts} p99 fast=${ms(p99Fast)}ms slow=${ms(p99Slow)}ms`
    );
  }
}

/** recvT of node i's first 200 (segment or snowflake) to a request sent at or after `after`; null if none. */
function firstOkAfter(rec: Recorder, node: number, after: number, segment: boolean): number | null {
  let best: number | null = null;
  for (let k = rec.ok.length - 1; k >= 0; k--) {
    const r = rec.ok[k];
    if (r.sendT < after - 60_000) break; // records are appended roughly in time order
    if (r.node === node && SEGMENT_KINDS.has(r.kind) === segment && r.sendT >= after && (best === null || r.recvT < best)) best = r.recvT;
  }
  return best;
}

interface EngineStats {
  /** IDs held: current segment's remaining + the pending segment; -1 when the admin API did not answer. */
  buffered: number;
  /** Requests that found both segments empty and had to wait for a load (this process's lifetime). */
  waits: number;
  failedRequests: number;
}

/** The engine's state for the tag on the node at `port`, from the admin API (GET /api/admin/tags/{tag}). */
function engineStats(port: number, timeoutMs = 6_000): Promise<EngineStats> {
  const unknown: EngineStats = { buffered: -1, waits: 0, failedRequests: 0 };
  return new Promise((resolve) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: `/api/admin/tags/${TAG}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, timeout: timeoutMs, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          try {
            type View = { current: { remaining: number } | null; pending: { step: number } | null; waits: number; failedRequests: number } | null;
            const e = (JSON.parse(body) as { tag: { engine: View } }).tag.engine;
            resolve({ buffered: (e?.current?.remaining ?? 0) + (e?.pending?.step ?? 0), waits: e?.waits ?? 0, failedRequests: e?.failedRequests ?? 0 });
          } catch {
            resolve(unknown);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(unknown));
  });
}

/**
 * Event-loop stalls of the harness itself (a starved or GC-paused client): a request in flight during one has a
 * latency that says nothing about the node, so the p99 windows leave it out (and say how many they left out).
 */
class StallMonitor {
  readonly stalls: Array<{ from: number; to: number }> = [];
  private last = now();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly thresholdMs: number) {}

  start(): void {
    this.last = now();
    this.timer = setInterval(() => {
      const t = now();
      if (t - this.last - 10 > this.thresholdMs) this.stalls.push({ from: this.last, to: t });
      this.last = t;
    }, 10);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
  }

  overlaps(from: number, to: number): boolean {
    for (const s of this.stalls) if (s.from <= to && s.to >= from) return true;
    return false;
  }
}

let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stdout.write(`chaos: ${sig}, stopping (again to force)\n`);
    // The exit hooks of node.ts and mariadb.ts SIGKILL what is left.
    setTimeout(() => process.exit(130), 100);
  });
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`chaos: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(2);
  },
);
