import { ensureFleetSemantics } from './segment/fleetSemantics';
import { type AdminToken, resolveAdminToken } from './auth/adminToken';
import { IdAccess } from './auth/scopedTokens';
import { TokenRefresher } from './auth/tokenRefresh';
import { type LeafConfig, processConfig } from './config';
import { systemClock } from './clock';
import { LeafError } from './errors';
import { takeNodeSnapshot } from './fleet/nodeSnapshot';
import { NodeRegistry } from './fleet/registry';
import { type Logger, createLogger } from './log';
import { FleetRateHistory } from './admin/fleetRates';
import { LoadLog } from './metrics/loadLog';
import { type PrometheusMetrics, createPrometheusMetrics } from './metrics/prometheus';
import { RateTracker } from './metrics/rateTracker';
import { SegmentEngine } from './segment/engine';
import { FormatEngine } from './format/engine';
import { checkFloor } from './snowflake/floor';
import { SnowflakeNode } from './snowflake/node';
import { openStore } from './store';
import type { LeafStore } from './store/leafStore';
import { registerFleetGauge } from './metrics/fleetGauge';
import { LEAF_VERSION } from './version';

/**
 * The one engine per process. Kept on globalThis so Next's module re-evaluation (dev reloads, and the separate
 * bundle of route handlers beside server.ts) finds the same engine instead of opening a second store.
 */
export interface Runtime {
  config: LeafConfig;
  logger: Logger;
  store: LeafStore;
  segments: SegmentEngine;
  /** Formatted, period-reset IDs (lib/format). */
  formats: FormatEngine;
  /** null when snowflake mode is off (LEAF_SNOWFLAKE=off). */
  snowflake: SnowflakeNode | null;
  /** Per-tag consumption history for the console (sampled once a second). */
  rates: RateTracker;
  prometheus: PrometheusMetrics;
  /** Recent segment loads per tag, for the console's load table and step chart. */
  loadLog: LoadLog;
  /** Per-node consumption of the tags the console's tag page asked about (from the registry's heartbeats). */
  fleetRates: FleetRateHistory;
  /** The console's credential. */
  admin: AdminToken;
  /** This node's row in the fleet registry, and reads of every node's (`fleet.nodes()`). */
  fleet: NodeRegistry;
  /** Keeps processIdAccess() in step with leaf_token; `refresh()` after a create or revoke on this node. */
  tokens: TokenRefresher;
  /** Stops background work: the rate sampler. */
  stopSampler(): void;
}

interface Holder {
  access: IdAccess | null;
  logger: Logger | null;
  runtime: Runtime | null;
  opening: Promise<Runtime> | null;
  lastFailureAt: number;
}

const KEY = Symbol.for('leaf-ts.runtime');
const RETRY_OPEN_MS = 1_000;

function holder(): Holder {
  const g = globalThis as unknown as Record<symbol, Holder | undefined>;
  return (g[KEY] ??= { access: null, logger: null, runtime: null, opening: null, lastFailureAt: 0 });
}

/** This process's logger, at the configured level. */
export function processLogger(): Logger {
  const h = holder();
  return (h.logger ??= createLogger(processConfig().logLevel));
}

/**
 * Who may use the ID routes (LEAF_ID_TOKEN and the access tokens), one table per process: the ID handler reads it,
 * the runtime's TokenRefresher fills it. Not loaded until the runtime opens, so the routes wait rather than guess.
 */
export function processIdAccess(): IdAccess {
  const h = holder();
  return (h.access ??= new IdAccess(processConfig().idToken));
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
    h.opening = open(processConfig(), processLogger()).then(
      (runtime) => {
        h.runtime = runtime;
        return runtime;
      },
      (error: unknown) => {
        h.lastFailureAt = Date.now();
        setTimeout(() => {
          h.opening = null;
        }, RETRY_OPEN_MS).unref();
        processLogger().log('error', 'runtime_open_failed', { error });
        throw error;
      },
    );
  }
  return h.opening;
}

/**
 * The runtime for the hot path: synchronously when it is up, else a promise that opens it or fails with a typed
 * `not_ready` (503) while the store cannot be reached.
 */
export function runtimeOrNotReady(): Runtime | Promise<Runtime> {
  return (
    currentRuntime() ??
    getRuntime().catch((cause: unknown) => {
      throw new LeafError('not_ready', 'The service is starting or cannot reach its store; try again shortly.', { cause });
    })
  );
}

async function open(config: LeafConfig, logger: Logger): Promise<Runtime> {
  const { enabled, nodeId, epochMs, minId, leaseMs, workerIds } = config.snowflake;
  // Before the store: a floor this clock has not passed refuses the start even while the database is down.
  if (enabled) checkFloor(minId, epochMs, systemClock.now());
  const store = await openStore(config.store);
  if (config.segmentSemantics !== null) {
    // Before the first claim: every claim then reads the default this node was told to keep.
    try {
      await ensureFleetSemantics({ store: store.semantics, semantics: config.segmentSemantics, nodeId: config.node.id, logger, now: systemClock.now() });
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  const prometheus = createPrometheusMetrics({ tags: config.metricsTags, runwayWarnSeconds: config.runwayWarnSeconds });
  const loadLog = new LoadLog();
  const segments = new SegmentEngine({
    store: store.tags,
    logger,
    onLoad: (bizTag, record) => {
      prometheus.observeLoad(bizTag, record);
      loadLog.record(bizTag, record);
    },
  });
  const formats = new FormatEngine({ store: store.formats, logger });
  const snowflake = enabled ? new SnowflakeNode({ store: store.workers, nodeId, epochMs, minId, leaseMs, workerIds, logger }) : null;
  const rates = new RateTracker({ clock: systemClock });
  const { id, address, heartbeatMs, goneMs, pruneMs } = config.node;
  const fleet = new NodeRegistry({
    store: store.nodes,
    nodeId: id,
    address,
    version: LEAF_VERSION,
    heartbeatMs,
    goneMs,
    pruneMs,
    logger,
    snapshot: () => takeNodeSnapshot({ segments, rates, snowflake, leaseMs }),
    // Another process holds our identity now: its snowflake worker would re-take ours (same node id) — let it.
    onLost: () => void snowflake?.stop(),
  });
  // The clock's timers do not keep the process alive, and at start nothing else may: hold it open while the
  // identity check watches another process's row.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    // The identity first: a twin found here stops the start before it could take the snowflake worker lease.
    await fleet.start();
  } catch (error) {
    await store.close();
    throw error;
  } finally {
    clearInterval(keepAlive);
  }
  // Before the node serves: the ID routes wait for the first load of the access tokens (they never guess open).
  const tokens = new TokenRefresher({ store: store.tokens, access: processIdAccess(), clock: systemClock, intervalMs: config.tokenRefreshMs, logger });
  await Promise.all([segments.start(), formats.start(), snowflake?.start(), tokens.start()]);
  prometheus.bind(segments, snowflake, { rates, store });
  registerFleetGauge(prometheus.registry, fleet);
  const sampler = setInterval(() => rates.record(segments.issuedTotals()), 1_000);
  sampler.unref();
  logger.log('info', 'runtime_ready', {
    dialect: store.dialect,
    tags: segments.status().tagsKnown,
    snowflakeWorkerId: snowflake?.workerId ?? null,
  });
  const admin = resolveAdminToken({ token: config.adminToken, dataDir: config.dataDir });
  if (admin.generated) {
    // Printed once, when the token is created: the operator's way into the console.
    const url = `http://localhost:${config.port}/login#token=${admin.token}`;
    process.stdout.write(`\nleaf-ts console: ${url}\n(admin token saved in ${admin.file}; set LEAF_ADMIN_TOKEN to choose your own)\n\n`);
  }
  const fleetRates = new FleetRateHistory({ clock: systemClock });
  return { config, logger, store, segments, formats, snowflake, rates, prometheus, loadLog, fleetRates, admin, fleet, tokens, stopSampler: () => clearInterval(sampler) };
}

/**
 * Stops timers and closes the store (tests, graceful shutdown). The engine stops serving first, then gives back the
 * unused top of its latest claims (LEAF_GIVE_BACK, bounded), and only then is the store closed.
 */
export async function closeRuntime(): Promise<void> {
  const h = holder();
  // A stop during the start: let the opening finish, then close what it opened (a worker lease, the node's row).
  if (h.runtime === null && h.opening !== null) await h.opening.catch(() => undefined);
  const runtime = h.runtime;
  h.runtime = null;
  h.opening = null;
  if (runtime !== null) {
    runtime.tokens.stop();
    runtime.stopSampler();
    const giveBack = runtime.config.giveBack;
    const [given, givenFormats] = await Promise.all([runtime.segments.close({ giveBack }), runtime.formats.close({ giveBack })]);
    given.push(...givenFormats);
    if (runtime.config.giveBack) runtime.logger.log('info', 'give_back_done', { tags: given.length, ids: given.reduce((sum, g) => sum + g.count, 0) });
    await Promise.all([runtime.snowflake?.stop(), runtime.fleet.stop()]);
    await runtime.store.close();
  }
}
