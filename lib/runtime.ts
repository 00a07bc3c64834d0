import path from 'node:path';
import { type AdminToken, resolveAdminToken } from './auth/adminToken';
import { snowflakeConfig } from './config';
import { systemClock } from './clock';
import { createLogger } from './log';
import { LoadLog } from './metrics/loadLog';
import { type PrometheusMetrics, createPrometheusMetrics } from './metrics/prometheus';
import { RateTracker } from './metrics/rateTracker';
import { SegmentEngine } from './segment/engine';
import { SnowflakeNode } from './snowflake/node';
import { openStore } from './store';
import type { LeafStore } from './store/types';

/**
 * The one engine per process. Kept on globalThis so Next's module re-evaluation (dev reloads, and the separate
 * bundle of route handlers beside server.ts) finds the same engine instead of opening a second store.
 */
export interface Runtime {
  store: LeafStore;
  segments: SegmentEngine;
  /** null when snowflake mode is off (LEAF_SNOWFLAKE=off). */
  snowflake: SnowflakeNode | null;
  /** Per-tag consumption history for the console (sampled once a second). */
  rates: RateTracker;
  prometheus: PrometheusMetrics;
  /** Recent segment loads per tag, for the console's load table and step chart. */
  loadLog: LoadLog;
  /** The console's credential. */
  admin: AdminToken;
  /** Stops background work: the rate sampler. */
  stopSampler(): void;
}

interface Holder {
  runtime: Runtime | null;
  opening: Promise<Runtime> | null;
  lastFailureAt: number;
}

const KEY = Symbol.for('leaf-ts.runtime');
const RETRY_OPEN_MS = 1_000;
const logger = createLogger();

function holder(): Holder {
  const g = globalThis as unknown as Record<symbol, Holder | undefined>;
  return (g[KEY] ??= { runtime: null, opening: null, lastFailureAt: 0 });
}

/** The runtime if it is up (synchronous, for the hot path), else null. */
export function currentRuntime(): Runtime | null {
  return holder().runtime;
}

/** Opens the store and engine once; a failed open (database down at start) is retried by a later call. */
export function getRuntime(): Promise<Runtime> {
  const h = holder();
  if (h.runtime !== null) return Promise.resolve(h.runtime);
  if (h.opening === null) {
    h.opening = open().then(
      (runtime) => {
        h.runtime = runtime;
        return runtime;
      },
      (error: unknown) => {
        h.lastFailureAt = Date.now();
        setTimeout(() => {
          h.opening = null;
        }, RETRY_OPEN_MS).unref();
        logger.log('error', 'runtime_open_failed', { error });
        throw error;
      },
    );
  }
  return h.opening;
}

async function open(): Promise<Runtime> {
  const store = await openStore({ databaseUrl: process.env.DATABASE_URL, sqliteFile: process.env.LEAF_SQLITE_FILE });
  const prometheus = createPrometheusMetrics();
  const loadLog = new LoadLog();
  const segments = new SegmentEngine({
    store,
    logger,
    onLoad: (bizTag, record) => {
      prometheus.observeLoad(bizTag, record);
      loadLog.record(bizTag, record);
    },
  });
  const config = snowflakeConfig();
  const snowflake = config.enabled
    ? new SnowflakeNode({ store, nodeId: config.nodeId, epochMs: config.epochMs, leaseMs: config.leaseMs, logger })
    : null;
  await Promise.all([segments.start(), snowflake?.start()]);
  prometheus.bind(segments, snowflake);
  const rates = new RateTracker({ clock: systemClock });
  const sampler = setInterval(() => rates.record(segments.issuedTotals()), 1_000);
  sampler.unref();
  logger.log('info', 'runtime_ready', {
    dialect: store.dialect,
    tags: segments.status().tagsKnown,
    snowflakeWorkerId: snowflake?.workerId ?? null,
  });
  const sqliteFile = process.env.LEAF_SQLITE_FILE;
  const admin = resolveAdminToken({
    ...process.env,
    LEAF_DATA_DIR: process.env.LEAF_DATA_DIR ?? (sqliteFile ? path.dirname(path.resolve(sqliteFile)) : undefined),
  });
  if (admin.generated) {
    // Printed once, when the token is created: the operator's way into the console.
    const url = `http://localhost:${process.env.PORT ?? 3000}/login#token=${admin.token}`;
    process.stdout.write(`\nleaf-ts console: ${url}\n(admin token saved in ${admin.file}; set LEAF_ADMIN_TOKEN to choose your own)\n\n`);
  }
  return { store, segments, snowflake, rates, prometheus, loadLog, admin, stopSampler: () => clearInterval(sampler) };
}

/** Stops timers and closes the store (tests, graceful shutdown). */
export async function closeRuntime(): Promise<void> {
  const h = holder();
  const runtime = h.runtime;
  h.runtime = null;
  h.opening = null;
  if (runtime !== null) {
    runtime.segments.stop();
    runtime.stopSampler();
    await runtime.snowflake?.stop();
    await runtime.store.close();
  }
}
