/**
 * The state of one chaos run, shared by its steps (cluster, scenario, report): the seeded random source, the
 * budget-bounded sleep, the progress and violation lines, the servers, the load and what the phases recorded.
 */
import type { GaleraCluster, HaproxyServer, MariadbServer, PatroniCluster, PostgresServer } from '../harness';
import { rng } from '../harness';
import { type Balancer, BudgetExceeded, type Database, type Size, fmt } from './config';
import { type Load, now } from './load';
import type { LeafNode, LogEvent } from './node';
import type { ChaosProxy } from './proxy';
import { Recorder } from './record';
import { StallMonitor } from './stalls';

export interface Outage {
  stopAt: number;
  downAt: number;
  startAt: number;
  backAt: number;
}

/** --lb: a node stopped (SIGKILL or a graceful SIGTERM) and started again, and when the balancer had it back. */
export interface NodeBounce {
  how: 'kill' | 'stop';
  node: string;
  at: number;
  /** The process was gone. */
  goneAt: number;
  /** It answered /api/health again. */
  upAt: number;
  /** The balancer's checks had it UP again (NaN if not seen within the bound). */
  inServiceAt: number;
}

export interface ChaosRun {
  /** Which database the run is on (--db). */
  database: Database;
  /** --lb: the load goes through this balancer in front of the nodes. */
  balancer: Balancer;
  haproxy: HaproxyServer | null;
  bounces: NodeBounce[];
  size: Size;
  keepLogs: boolean;
  runId: string;
  runDir: string;
  /** Seeded, so a run's choices (victims, moments, delays, request mix) replay. */
  random: () => number;
  rand: (lo: number, hi: number) => number;
  t0: number;
  deadline: number;
  say: (line: string) => void;
  violations: string[];
  violate: (v: string) => void;
  /** Sleeps at most until the budget's deadline; throws BudgetExceeded past it. */
  sleep: (ms: number) => Promise<void>;
  /** The one database server of the run (MariaDB, or PostgreSQL with --db postgres); null with --db galera. */
  db: MariadbServer | PostgresServer | null;
  galera: GaleraCluster | null;
  /** --db patroni: the 3-node synchronous Patroni cluster. */
  patroni: PatroniCluster | null;
  /** A URL to read leaf_alloc from after the run (a live database node), or null when none is up. */
  checkUrl: () => string | null;
  proxies: ChaosProxy[];
  nodes: LeafNode[];
  rec: Recorder;
  load: Load | null;
  logEvents: LogEvent[];
  phases: Record<string, { from: number; to: number }>;
  cuts: number[];
  kills: Array<{ node: string; at: number; restartMs: number }>;
  outage: Outage | null;
  /** --db galera: Galera nodes killed (and when they were Synced again) and partitioned off (and healed). */
  dbKills: Array<{ node: number; at: number; backAt: number }>;
  partitions: Array<{ node: number; at: number; healedAt: number }>;
  /** --db patroni: each fault on the cluster, the Patroni node it hit, when, and when a primary wrote again. */
  patroniFaults: Array<{
    kind: 'primary-kill' | 'switchover' | 'replica-kill';
    node: number;
    at: number;
    writableAt: number;
  }>;
  /**
   * --db galera: from a Galera node's death or cut until the others evicted it, plus a margin (--db patroni: from a
   * fault until a primary commits again). Writes stall cluster-wide for that long, so a node whose buffers are
   * nearly empty (just restarted, tiny first segments) may answer 503 then; such 503s are counted apart, never hidden.
   */
  evictionWindows: Array<{ from: number; to: number }>;
  tearingDown: boolean;
  /** Per node: engine waits during the slow-DB phase (NaN when the admin API did not answer). */
  slowWaits: number[];
  stalls: StallMonitor;
}

export function createRun(o: {
  size: Size;
  seed: number;
  keepLogs: boolean;
  runId: string;
  runDir: string;
  db: Database;
  lb: Balancer;
}): ChaosRun {
  const random = rng(o.seed);
  const t0 = now();
  const deadline = t0 + o.size.budgetS * 1000;
  const say = (line: string) => process.stdout.write(`[chaos +${fmt(now() - t0)}s] ${line}\n`);
  const violations: string[] = [];
  return {
    database: o.db,
    balancer: o.lb,
    haproxy: null,
    bounces: [],
    size: o.size,
    keepLogs: o.keepLogs,
    runId: o.runId,
    runDir: o.runDir,
    random,
    rand: (lo, hi) => lo + random() * (hi - lo),
    t0,
    deadline,
    say,
    violations,
    violate: (v) => {
      violations.push(v);
      say(`VIOLATION: ${v}`);
    },
    sleep: async (ms) => {
      const left = deadline - now();
      if (left <= 0) throw new BudgetExceeded();
      await new Promise((r) => setTimeout(r, Math.min(ms, left)));
      if (now() >= deadline) throw new BudgetExceeded();
    },
    db: null,
    galera: null,
    patroni: null,
    checkUrl: () => null,
    proxies: [],
    nodes: [],
    rec: new Recorder(),
    load: null,
    logEvents: [],
    phases: {},
    cuts: [],
    kills: [],
    outage: null,
    dbKills: [],
    partitions: [],
    patroniFaults: [],
    evictionWindows: [],
    tearingDown: false,
    slowWaits: [],
    stalls: new StallMonitor(25),
  };
}
