/** The console's part: load log, fleet rates, Prometheus, the admin credential; its hooks made before the core. */
import { type AdminToken, resolveAdminToken } from './auth/adminToken';
import { ConsoleSessions } from './auth/consoleSessions';
import type { LeafConfig } from './leafConfig';
import type { Logger } from './log';
import { registerFleetGauge } from './metrics/fleetGauge';
import { LoadLog } from './metrics/loadLog';
import { type MetricsSources, type PrometheusMetrics, createPrometheusMetrics } from './metrics/prometheus';
import type { RateTracker } from './metrics/rateTracker';
import type { SegmentLoadRecord } from './segment/buffer';
import type { NodeRegistry } from './fleet/registry';
import type { SegmentEngine } from './segment/engine';
import type { SnowflakeNode } from './snowflake/node';
import type { LeafStore } from './store/leafStore';

export interface ConsoleRuntime {
  /** Per-tag consumption history (sampled once a second). */
  rates: RateTracker;
  prometheus: PrometheusMetrics;
  /** Recent segment loads per tag, for the console's load table and step chart. */
  loadLog: LoadLog;
  /** The console's credential; `generated` once, when it was made at this start (server.ts prints the login link). */
  admin: AdminToken;
  /** Console sessions, kept in the database and signed with the admin token. */
  sessions: ConsoleSessions;
  /** Stops the rate sampler. */
  stop(): void;
}

/** The parts the core needs from its first claim: the rates and where a load is reported. */
export interface ConsoleParts {
  prometheus: PrometheusMetrics;
  loadLog: LoadLog;
  onLoad: (bizTag: string, record: SegmentLoadRecord) => void;
}

export function createConsoleParts(config: LeafConfig): ConsoleParts {
  const prometheus = createPrometheusMetrics({ tags: config.metricsTags, runwayWarnSeconds: config.runwayWarnSeconds });
  const loadLog = new LoadLog();
  return {
    prometheus,
    loadLog,
    onLoad: (bizTag, record) => {
      prometheus.observeLoad(bizTag, record);
      loadLog.record(bizTag, record);
    },
  };
}

/** What the console reads of the serving core. */
export interface ConsoleCore {
  segments: SegmentEngine;
  snowflake: SnowflakeNode | null;
  store: LeafStore;
  fleet: NodeRegistry;
  rates: RateTracker;
  ordered: NonNullable<MetricsSources['ordered']>;
  region: NonNullable<MetricsSources['region']>;
}

export function startConsoleParts(
  parts: ConsoleParts,
  core: ConsoleCore,
  config: Pick<LeafConfig, 'adminToken' | 'dataDir'>,
  logger: Logger,
): ConsoleRuntime {
  const { prometheus, loadLog } = parts;
  const { rates } = core;
  prometheus.bind(core.segments, core.snowflake, {
    rates,
    store: core.store,
    ordered: core.ordered,
    region: core.region,
  });
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
    admin,
    sessions: new ConsoleSessions(core.store.sessions, admin.token),
    stop: () => clearInterval(sampler),
  };
}
