/** The chaos suite's constants, its two sizes and its command line. */
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const TAG = 'chaos';
export const DB_STEP = 200;
export const NODES = 3;
export const CLIENT_TIMEOUT_MS = 3_000;
export const LATENCY = { minMs: 200, maxMs: 2_000 };
export const P99_FACTOR = 5;
/**
 * Absolute floor of the slow-DB p99 bound. Any request that waited for a DB round trip takes at least the smallest
 * injected delay (200 ms), so a bound anywhere below 200 ms separates "waited on the DB" from "did not"; half of it
 * keeps a 2× margin both from that and from the scheduler noise of a shared 2-core box (baseline p99 10–40 ms).
 * The engine's own `waits` counter (requests that found both segments empty) is checked too: it must not move.
 */
export const P99_FLOOR_MS = 100;
export const ADMIN_TOKEN = `chaos-${randomBytes(12).toString('hex')}`;
export const SNOWFLAKE_OK_503 = new Set(['snowflake_unavailable', 'clock_moved_backwards', 'not_ready']);
export const SEGMENT_OK_503 = new Set(['store_unavailable', 'segment_unavailable', 'not_ready']);
/**
 * The formatted tag beside the segment tag: a daily counter whose small first step makes every node claim often
 * (each period is a segment-mode tag of its own, so the step then grows as the segment tag's does).
 */
export const FORMAT_TAG = 'chaos-fmt';
export const FORMAT = {
  pattern: 'CH-{yyyyMMdd}-{seq:9}',
  resetPeriod: 'daily',
  timeZone: 'Asia/Shanghai',
  step: 50,
} as const;
/** An ID of FORMAT: its date (the period key) and its sequence number. */
export const FORMATTED_ID = /^CH-([0-9]{8})-([0-9]{9})$/;
/** As the segment route's; never `sequence_exhausted`: {seq:9} holds 999,999,999 numbers a day, far above a run. */
export const FORMATTED_OK_503 = new Set(['store_unavailable', 'segment_unavailable', 'not_ready']);

export interface Size {
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
  /** --db galera only: Galera nodes SIGKILLed and restarted, one at a time. */
  dbKills: number;
  /** --db galera only: a Galera node cut off from the other two (a non-primary minority), for partitionS. */
  partitions: number;
  partitionS: number;
  /** --lb only: nodes stopped gracefully (SIGTERM) and started again. */
  lbStops: number;
  /** --db patroni only: the primary SIGKILLed (then restarted to rejoin), planned switchovers, replicas SIGKILLed and restarted. */
  primaryKills: number;
  switchovers: number;
  replicaKills: number;
}

export const SIZES: Record<'small' | 'full', Size> = {
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
    dbKills: 0,
    partitions: 0,
    partitionS: 0,
    lbStops: 0,
    primaryKills: 0,
    switchovers: 0,
    replicaKills: 0,
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
    dbKills: 0,
    partitions: 0,
    partitionS: 0,
    lbStops: 0,
    primaryKills: 0,
    switchovers: 0,
    replicaKills: 0,
  },
};

/**
 * `--db galera`: the same load over a 3-node Galera cluster; the faults are the database's (Galera nodes killed and
 * restarted, one partitioned off, the whole cluster down past the buffers). The budget includes the cluster's
 * start (~15 s here) and each rejoin (IST, ~4 s).
 */
export const GALERA_SIZES: Record<'small' | 'full', Size> = {
  small: {
    ...SIZES.small,
    budgetS: 190,
    baselineS: 6,
    slowS: 0,
    kills: 0,
    cuts: 0,
    dbKills: 2,
    partitions: 1,
    partitionS: 6,
    actionGapS: [1, 2],
  },
  full: {
    ...SIZES.full,
    budgetS: 420,
    baselineS: 15,
    slowS: 0,
    kills: 2,
    cuts: 0,
    dbKills: 5,
    partitions: 3,
    partitionS: 10,
    actionGapS: [1, 4],
  },
};

/**
 * `--lb haproxy`: the same load through HAProxy running ops/haproxy/haproxy.cfg in front of the nodes (one MariaDB,
 * no fault proxies); the faults are the nodes': SIGKILLed, or stopped gracefully (SIGTERM), and started again.
 */
export const LB_SIZES: Record<'small' | 'full', Size> = {
  small: {
    ...SIZES.small,
    budgetS: 140,
    warmupS: 5,
    baselineS: 6,
    slowS: 0,
    kills: 3,
    cuts: 0,
    lbStops: 3,
    tailS: 4,
    actionGapS: [1, 3],
  },
  full: {
    ...SIZES.full,
    budgetS: 400,
    warmupS: 8,
    baselineS: 20,
    slowS: 0,
    kills: 10,
    cuts: 0,
    lbStops: 10,
    tailS: 15,
    actionGapS: [1, 4],
  },
};

/**
 * `--db patroni`: the same load over a 3-node synchronous Patroni cluster (multi-host URL); the faults are the
 * database's (the primary SIGKILLed, a switchover, a replica SIGKILLed) plus leaf-ts node kills. No full outage:
 * --db postgres covers that. The budget includes the cluster's start (~15 s), each failover (~10 s) and rejoin.
 */
export const PATRONI_SIZES: Record<'small' | 'full', Size> = {
  small: {
    ...SIZES.small,
    budgetS: 200,
    baselineS: 6,
    slowS: 0,
    kills: 1,
    cuts: 0,
    primaryKills: 1,
    switchovers: 1,
    replicaKills: 1,
    actionGapS: [1, 2],
  },
  full: {
    ...SIZES.full,
    budgetS: 450,
    baselineS: 15,
    slowS: 0,
    kills: 3,
    cuts: 0,
    primaryKills: 4,
    switchovers: 3,
    replicaKills: 3,
    actionGapS: [1, 4],
  },
};

export type Database = 'mariadb' | 'galera' | 'postgres' | 'patroni';
export type Balancer = 'none' | 'haproxy';

export function parseArgs(argv: string[]): {
  size: 'small' | 'full';
  seed: number;
  keepLogs: boolean;
  db: Database;
  lb: Balancer;
} {
  let size: 'small' | 'full' = 'small';
  let db: Database = 'mariadb';
  let lb: Balancer = 'none';
  let seed = Number.parseInt(randomBytes(4).toString('hex'), 16);
  let keepLogs = false;
  const args = argv.values();
  for (const a of args) {
    const value = (name: string) => {
      const eq = a.indexOf('=');
      if (eq !== -1) return a.slice(eq + 1);
      const v = args.next();
      if (v.done === true) throw new Error(`${name} needs a value`);
      return v.value;
    };
    if (a === '--size' || a.startsWith('--size=')) {
      const v = value('--size');
      if (v !== 'small' && v !== 'full') throw new Error(`--size must be small or full (got ${v})`);
      size = v;
    } else if (a === '--seed' || a.startsWith('--seed=')) {
      seed = Number(value('--seed'));
      if (!Number.isSafeInteger(seed)) throw new Error('--seed must be an integer');
    } else if (a === '--db' || a.startsWith('--db=')) {
      const v = value('--db');
      if (v !== 'mariadb' && v !== 'galera' && v !== 'postgres' && v !== 'patroni')
        throw new Error(`--db must be mariadb, galera, postgres or patroni (got ${v})`);
      db = v;
    } else if (a === '--lb' || a.startsWith('--lb=')) {
      const v = value('--lb');
      if (v !== 'haproxy') throw new Error(`--lb must be haproxy (got ${v})`);
      lb = v;
    } else if (a === '--keep-logs') {
      keepLogs = true;
    } else {
      throw new Error(
        `unknown argument ${a} (usage: tsx tools/chaos/run.ts [--db mariadb|galera|postgres|patroni] [--lb haproxy] [--size small|full] [--seed N] [--keep-logs])`,
      );
    }
  }
  if (lb !== 'none' && db !== 'mariadb') throw new Error('--lb runs on one MariaDB (leave out --db)');
  return { size, seed, keepLogs, db, lb };
}

export class BudgetExceeded extends Error {}

export const fmt = (ms: number) => (ms / 1000).toFixed(1);
