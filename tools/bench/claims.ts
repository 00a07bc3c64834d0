/**
 * The direct claim measurement: the store's `allocate(tag, 1000)` (one segment claim, one UPDATE of leaf_alloc) called
 * from this process on a SQLite file (WAL, as the server's default), on the single MariaDB, on PostgreSQL, on the 3-node
 * Galera cluster and on the 3-node synchronous Patroni cluster (multi-host URLs, as leaf-ts uses them), CLAIM_CONCURRENCY at a time, no HTTP and no ID serving around it.
 * Under HTTP load a single-ID row does only a couple of segment loads, too few for a p99; this gives claims per
 * second and the p50 / p99 of one claim with µs resolution. Runs after the HTTP rows (nothing else is loaded then),
 * each database in two halves of CLAIMS in mirrored order (A B … B A), after a warm-up; the claimed segments must
 * not overlap. `BENCH_ONLY=claims` runs only these rows, on SQLite and MariaDB (no Galera, no servers).
 */
import os from 'node:os';
import path from 'node:path';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import { CLAIMS, CLAIM_CONCURRENCY, CLAIM_STEP, CLAIM_TAG, NOISY_OTHER_SHARE, progress } from './config';
import { type CpuSnap, cpuSnap, withDescendants } from './cpu';
import { fmtInt, fmtMs, fmtUs, pct } from './format';
import { percentile } from '../harness';
import { failures, rows } from './results';
import type { ClaimNote } from '../../lib/claims/claimNote';
import type { ClaimLogStore } from '../../lib/claims/claimLogStore';
import { claimsBetween } from '../../lib/claims/claimLog';

/** What the measurement needs of a store: the claim, one tag, close. */
interface ClaimStore {
  tags: {
    allocate(bizTag: string, step: number, note?: ClaimNote): Promise<{ maxId: number | bigint; step: number }>;
    createTag(tag: { bizTag: string; step: number; description: string }): Promise<unknown>;
  };
  claims: Pick<ClaimLogStore, 'rowsUpTo'>;
  close(): Promise<void>;
}

export interface ClaimTarget {
  key: string;
  scenario: string;
  open(): Promise<ClaimStore>;
  /** The database's processes (mariadbd, every Galera node, the postmaster — with its backends): their CPU is the row's "server" CPU; none for SQLite (in this process). */
  pids: number[];
  /** The claim log's row with each claim (issue 41), on a tag of its own: the `-log` twin every target is measured beside. */
  note?: ClaimNote;
}

/** A node's claim as the claim log writes it: the twin of `t`, measured beside it in the same run. */
function loggedTwin(t: ClaimTarget): ClaimTarget {
  const note: ClaimNote = {
    claimer: 'bench',
    instance: 'bench-claims',
    tailMs: 300_000,
    region: 0,
    regions: 1,
    kind: 'segment',
    servingFirst: null,
    leasedMax: -1n,
  };
  return {
    ...t,
    key: `${t.key}-log`,
    scenario: `${t.scenario.replace(' (claims/s)', '')}, with the claim log (claims/s)`,
    note,
  };
}

const tagOf = (t: ClaimTarget) => (t.note === undefined ? CLAIM_TAG : `${CLAIM_TAG}-log`);

/** A MySQL/MariaDB/Galera target, as DATABASE_URL names it. */
export function mysqlClaims(key: string, scenario: string, url: string, pids: number[]): ClaimTarget {
  return { key, scenario, pids, open: () => MysqlStore.open({ url }) };
}

/** A PostgreSQL target, as DATABASE_URL names it. */
export function postgresClaims(key: string, scenario: string, url: string, pids: number[]): ClaimTarget {
  return { key, scenario, pids, open: () => PostgresStore.open({ url }) };
}

/** A fresh SQLite file in `dir` (WAL): the claim runs in this process, so its CPU is the load generator's. */
export function sqliteClaims(key: string, scenario: string, dir: string): ClaimTarget {
  return { key, scenario, pids: [], open: async () => new SqliteStore({ file: path.join(dir, `${key}.db`) }) };
}

interface Acc {
  target: ClaimTarget;
  store: ClaimStore;
  latenciesMs: number[];
  maxIds: number[];
  errors: number;
  firstError: string;
  seconds: number;
  cpu: CpuSnap;
  perRound: number[];
  /** The log's rows of the run, and how long the issued query over all of them took (ms). */
  logRows: number;
  logQueryMs: number;
  /** The first ID of the newest segment claimed: the logged claims' serving segment. */
  serving: bigint | null;
}

const WARMUP_CLAIMS = 100;

/** `n` claims, CLAIM_CONCURRENCY at a time; latencies and maxIds into `acc` unless `warmup`. Returns seconds. */
async function claimRun(acc: Acc, n: number, warmup: boolean): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < n) {
      next++;
      const t = performance.now();
      try {
        // As a node's: each claim made while serving the newest segment it has, which retires the ones before.
        const note = acc.target.note === undefined ? undefined : { ...acc.target.note, servingFirst: acc.serving };
        const a = await acc.store.tags.allocate(tagOf(acc.target), CLAIM_STEP, note);
        acc.serving = BigInt(a.maxId) - BigInt(CLAIM_STEP) + 1n;
        const ms = performance.now() - t;
        acc.maxIds.push(Number(a.maxId)); // claims of a fresh tag: far below 2^53
        if (a.step !== CLAIM_STEP) throw new Error(`claimed step ${a.step}, asked ${CLAIM_STEP}`);
        if (!warmup) acc.latenciesMs.push(ms);
      } catch (error) {
        acc.errors++;
        if (acc.firstError === '') acc.firstError = error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: CLAIM_CONCURRENCY }, worker));
  return (performance.now() - started) / 1000;
}

export async function measureClaims(plain: ClaimTarget[]): Promise<void> {
  const targets = plain.flatMap((t) => [t, loggedTwin(t)]);
  progress(
    `claims: store.tags.allocate('${CLAIM_TAG}', ${CLAIM_STEP}) from this process, ${CLAIM_CONCURRENCY} at a time, ${CLAIMS.toLocaleString('en-US')} per database ` +
      `(after ${WARMUP_CLAIMS} warm-up claims), on ${targets.map((t) => t.key).join(' and ')}`,
  );
  const accs: Acc[] = [];
  for (const target of targets) {
    const store = await target.open();
    await store.tags.createTag({
      bizTag: tagOf(target),
      step: CLAIM_STEP,
      description: 'npm run bench: direct claims',
    });
    accs.push({
      target,
      store,
      latenciesMs: [],
      maxIds: [],
      errors: 0,
      firstError: '',
      seconds: 0,
      cpu: { wallUs: 0, busyUs: 0, serverUs: 0, benchUs: 0 },
      perRound: [],
      logRows: 0,
      logQueryMs: 0,
      serving: null,
    });
  }
  try {
    for (const acc of accs) await claimRun(acc, WARMUP_CLAIMS, true);
    // A B … B A: each database measured in two halves, in mirrored order, so drift hits both alike.
    const order = [...accs, ...[...accs].reverse()];
    for (const acc of order) {
      const n = Math.ceil(CLAIMS / 2);
      // With their children: PostgreSQL's backends (the store's pooled connections, alive through the run).
      const pids = acc.target.pids.flatMap(withDescendants);
      const c0 = cpuSnap(pids);
      const s = await claimRun(acc, n, false);
      const c1 = cpuSnap(pids);
      acc.seconds += s;
      acc.perRound.push(n / s);
      for (const k of ['wallUs', 'busyUs', 'serverUs', 'benchUs'] as const) acc.cpu[k] += c1[k] - c0[k];
      progress(
        `claims ${acc.target.key}: ${fmtInt(n / s)} claims/s over ${n} claims; p99 ${fmtMs(percentile(acc.latenciesMs.slice(-n), 99))} ms`,
      );
    }
    for (const acc of accs) {
      if (acc.target.note === undefined) continue;
      const t = performance.now();
      acc.logRows = (await claimsBetween(acc.store.claims, tagOf(acc.target), 0, Number.MAX_SAFE_INTEGER)).length;
      acc.logQueryMs = performance.now() - t;
    }
  } finally {
    for (const acc of accs) await acc.store.close();
  }
  for (const acc of accs) {
    const { target } = acc;
    const n = acc.latenciesMs.length;
    // The segments [maxId - step + 1, maxId] of all claims (warm-up included) must be disjoint.
    const sorted = [...acc.maxIds].sort((a, b) => a - b);
    let overlaps = 0;
    for (const [i, maxId] of sorted.entries()) {
      const prev = sorted[i - 1];
      if (prev !== undefined && maxId - prev < CLAIM_STEP) overlaps++;
    }
    if (overlaps > 0) failures.push(`claims ${target.key}: ${overlaps} overlapping segments`);
    if (acc.errors > 0) failures.push(`claims ${target.key}: ${acc.errors} failed claims (${acc.firstError})`);
    if (target.note !== undefined && acc.logRows !== sorted.length)
      failures.push(`claims ${target.key}: ${acc.logRows} log rows for ${sorted.length} claims`);
    const capacity = acc.cpu.wallUs * os.cpus().length;
    const other = Math.max(0, acc.cpu.busyUs - acc.cpu.serverUs - acc.cpu.benchUs) / capacity;
    const perSec = n / acc.seconds;
    const p50 = percentile(acc.latenciesMs, 50);
    const p99 = percentile(acc.latenciesMs, 99);
    rows.push({
      key: target.key,
      scenario: target.scenario,
      reqPerSec: perSec,
      idsPerSec: perSec * CLAIM_STEP,
      p50,
      p99,
      errors: acc.errors,
      non2xx: null,
      writesPer1000: 1000 / CLAIM_STEP,
      writesCell:
        target.note === undefined
          ? `${1000 / CLAIM_STEP} (one UPDATE per claim of ${CLAIM_STEP.toLocaleString('en-US')} IDs)`
          : `${2000 / CLAIM_STEP} (an UPDATE and the log's INSERT per claim, one transaction)`,
      cpuPerReqUs: acc.cpu.serverUs / n,
      cpuShare: { server: acc.cpu.serverUs / capacity, gen: acc.cpu.benchUs / capacity, other },
      check:
        (other > NOISY_OTHER_SHARE ? `⚠ noisy: other processes took ${pct(other)} % of the machine; ` : '') +
        `${overlaps === 0 && acc.errors === 0 ? '✔' : '✘'} per half ${acc.perRound.map((x) => fmtInt(x)).join(' / ')} claims/s; ` +
        `${sorted.length.toLocaleString('en-US')} segments (warm-up included): ${overlaps} overlapping; ${acc.errors} failed claims` +
        (target.note === undefined
          ? ''
          : `; ${acc.logRows.toLocaleString('en-US')} log rows, all answered by one issued query in ${fmtMs(acc.logQueryMs)} ms`),
      claims: { perSec, count: n, timed: n, p50Ms: p50, p99Ms: p99 },
    });
    progress(
      `claims ${target.key}: ${fmtInt(perSec)} claims/s, p50 ${fmtMs(p50)} ms, p99 ${fmtMs(p99)} ms, database CPU ${fmtUs(acc.cpu.serverUs / n)} µs/claim; ${overlaps} overlaps, ${acc.errors} errors`,
    );
  }
}
