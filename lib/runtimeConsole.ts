/**
 * The console's and the metrics' part of a runtime: per-tag rates (sampled once a second), the segment-load log,
 * per-node fleet rates, Prometheus, and the admin credential. Made before the core, whose engines report loads to
 * it from their first claim; bound to the core once it is open.
 */
import { FleetRateHistory } from './admin/fleetRates';
import { type AdminToken, resolveAdminToken } from './auth/adminToken';
import { systemClock } from './clock';
import type { LeafConfig } from './config';
import type { Logger } from './log';
import { registerFleetGauge } from './metrics/fleetGauge';
import { LoadLog } from './metrics/loadLog';
import { type PrometheusMetrics, createPrometheusMetrics } from './metrics/prometheus';
import { RateTracker } from './metrics/rateTracker';
import type { SegmentLoadRecord } from './segment/buffer';
import type { CoreRuntime } from './runtimeCore';

export interface ConsoleRuntime {
  /** Per-tag consumption history (sampled once a second). */
  rates: RateTracker;
  prometheus: PrometheusMetrics;
  /** Recent segment loads per tag, for the console's load table and step chart. */
  loadLog: LoadLog;
  /** Per-node consumption of the tags the console's tag page asked about (from the registry's heartbeats). */
  fleetRates: FleetRateHistory;
  /** The console's credential; `generated` once, when it was made at this start (server.ts prints the login link). */
  admin: AdminToken;
  /** Stops the rate sampler. */
  stop(): void;
}

/** The parts the core needs from its first claim: the rates and where a load is reported. */
export interface ConsoleParts {
  rates: RateTracker;
  prometheus: PrometheusMetrics;
  loadLog: LoadLog;
  onLoad: (bizTag: string, record: SegmentLoadRecord) => void;
}

export function createConsoleParts(config: LeafConfig): ConsoleParts {
  const prometheus = createPrometheusMetrics({ tags: config.metricsTags, runwayWarnSeconds: config.runwayWarnSeconds });
  const loadLog = new LoadLog();
  return {
    rates: new RateTracker({ clock: systemClock }),
    prometheus,
    loadLog,
    onLoad: (bizTag, record) => {
      prometheus.observeLoad(bizTag, record);
      loadLog.record(bizTag, record);
    },
  };
}

export function startConsoleParts(
  parts: ConsoleParts,
  core: CoreRuntime,
  config: LeafConfig,
  logger: Logger,
): ConsoleRuntime {
  const { rates, prometheus, loadLog } = parts;
  prometheus.bind(core.segments, core.snowflake, { rates, store: core.store });
  registerFleetGauge(prometheus.registry, core.fleet);
  const sampler = setInterval(() => rates.record(core.segments.issuedTotals()), 1_000);
  sampler.unref();
  const admin = resolveAdminToken({ token: config.adminToken, dataDir: config.dataDir });
  // Where it is, never what it is: the link with the token is printed once, by the process's own front (server.ts).
  if (admin.generated) logger.log('info', 'admin_token_generated', { file: admin.file });
  return {
    rates,
    prometheus,
    loadLog,
    fleetRates: new FleetRateHistory({ clock: systemClock }),
    admin,
    stop: () => clearInterval(sampler),
  };
}
