import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { LeafError } from './errors';
import type { LeafConfig, NodeConfig, SnowflakeConfig } from './leafConfig';
import { LOG_LEVELS, type LogLevel } from './log';
import {
  DEFAULT_METRICS_TAGS,
  METRICS_TAGS_GRAMMAR,
  type MetricsTagSelection,
  parseMetricsTags,
} from './metrics/tagSelection';
import { MIN_OPAQUE_KEY_BYTES, opaqueKeyBytes } from './opaque/key';
import { readOpaqueKeys } from './opaque/keyConfig';
import { SEMANTICS } from './segment/semantics';
import { DEFAULT_EPOCH_MS, LAYOUT_GRAMMAR, LEAF_EPOCH_MS, MAX_SNOWFLAKE, SnowflakeLayout } from './snowflake/layout';
import { checkLifetime } from './snowflake/lifetime';
import { WorkerIdSet, parseWorkerIds, workerIdsGrammar } from './snowflake/workerIds';
import { TRUSTED_PROXIES_GRAMMAR, parseTrustedProxies } from './trustedProxies';
import { DATABASE_URL_FORMS, type StoreLocation, serverUrlProblem, storeUrlTarget } from './store/target';

/** Every setting, read once from the environment and checked; the only reader of `process.env` in lib/. */

export type { LeafConfig, NodeConfig, SnowflakeConfig };

export const DEFAULT_SQLITE_FILE = './data/leaf.db';
export const MIN_ADMIN_TOKEN_LENGTH = 16;
export const MAX_WORKERS = 64;
/** Regions split the ID space by remainder: more would leave few IDs per segment row and few snowflake workers. */
export const MAX_REGIONS = 1024;
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

export type Env = Readonly<Record<string, string | undefined>>;

// Empty values count as unset: `FOO=` in an env file means "no value", not "the empty string".
const unset = (v: unknown) => (v === '' ? undefined : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(unset, schema.optional());

const SWITCH_VALUES = ['on', 'off', 'true', 'false', '1', '0', 'yes', 'no'];
const onOff = (fallback: boolean) =>
  optional(
    z
      .string()
      .transform((v) => v.toLowerCase())
      .refine((v) => SWITCH_VALUES.includes(v), { message: 'on or off' }),
  ).transform((v) => (v === undefined ? fallback : ['on', 'true', '1', 'yes'].includes(v)));

const integer = (min: number, max: number, fallback: number, what = `an integer from ${min} to ${max}`) =>
  optional(
    z.string().refine((v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max, { message: what }),
  ).transform((v) => (v === undefined ? fallback : Number(v)));

// `leaf` names Leaf's epoch rather than a second variable: the layout is Leaf's already, so the epoch is all a
// preset would set, and one variable cannot contradict itself.
const epochMs = (v: string) =>
  v.toLowerCase() === 'leaf' ? LEAF_EPOCH_MS : /^\d+$/.test(v) ? Number(v) : Date.parse(v);
const epoch = optional(
  z.string().refine((v) => Number.isSafeInteger(epochMs(v)), {
    message: "an ISO date (2026-01-01T00:00:00Z), ms since 1970, or leaf (Leaf's epoch, 1288834974657)",
  }),
).transform((v) => (v === undefined ? DEFAULT_EPOCH_MS : epochMs(v)));

// A bigint, never a JS number: Leaf's IDs are far above 2^53.
const snowflakeId = optional(
  z.string().refine((v) => /^\d{1,19}$/.test(v) && BigInt(v) <= MAX_SNOWFLAKE, {
    message: `a snowflake ID, a decimal integer from 0 to ${MAX_SNOWFLAKE}`,
  }),
).transform((v) => (v === undefined ? null : BigInt(v)));

const databaseUrl = optional(
  z
    .string()
    .refine((v) => /^(mysql|postgres|postgresql|file|sqlite):/i.test(v), { message: DATABASE_URL_FORMS })
    .superRefine((v, ctx) => {
      const problem = serverUrlProblem(v);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
);

const ENV_SCHEMA = z.object({
  PORT: integer(0, 65_535, 3000, 'a port number from 0 to 65535'),
  HOST: optional(z.string()).transform((v) => v ?? '127.0.0.1'),
  NODE_ENV: optional(z.string()),
  LEAF_FAST_LANE: onOff(true),
  LEAF_GIVE_BACK: onOff(true),
  LEAF_RANGE_LEASE_VALID_MS: integer(1_000, 86_400_000, 300_000, 'an integer from 1000 to 86400000 (ms)'),
  LEAF_CLAIM_LOG_DAYS: integer(1, 3_650, 90, 'a whole number of days from 1 to 3650'),
  LEAF_LOG_LEVEL: optional(
    z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(LOG_LEVELS, { message: LOG_LEVELS.join(', ') })),
  ).transform((v): LogLevel => v ?? 'info'),
  LEAF_WORKERS: integer(1, MAX_WORKERS, 1),
  LEAF_WORKER_INDEX: optional(z.string().regex(/^\d+$/, { message: 'a worker index (set by the cluster primary)' })),
  DATABASE_URL: databaseUrl,
  LEAF_SQLITE_FILE: optional(z.string()),
  LEAF_MIGRATIONS_DIR: optional(z.string()),
  LEAF_DATA_DIR: optional(z.string()),
  LEAF_ADMIN_TOKEN: optional(
    z
      .string()
      .min(MIN_ADMIN_TOKEN_LENGTH, { message: `at least ${MIN_ADMIN_TOKEN_LENGTH} characters (it guards deletes)` }),
  ),
  LEAF_ID_TOKEN: optional(z.string()),
  LEAF_OPAQUE_KEY: optional(
    z.string().refine((v) => opaqueKeyBytes(v) >= MIN_OPAQUE_KEY_BYTES, {
      message: `at least ${MIN_OPAQUE_KEY_BYTES} bytes of secret`,
    }),
  ),
  LEAF_OPAQUE_KEY_FILE: optional(z.string()),
  LEAF_OPAQUE_RETIRED_KEYS_FILE: optional(z.string()),
  LEAF_SNOWFLAKE: onOff(true),
  LEAF_SNOWFLAKE_EPOCH: epoch,
  LEAF_SNOWFLAKE_MIN_ID: snowflakeId,
  LEAF_SNOWFLAKE_LAYOUT: optional(
    z.string().transform((v, ctx) => {
      const parsed = SnowflakeLayout.parse(v);
      if (parsed instanceof SnowflakeLayout) return parsed;
      ctx.addIssue({ code: 'custom', message: `${LAYOUT_GRAMMAR} (${parsed.problem})` });
      return z.NEVER;
    }),
  ).transform((v) => v ?? SnowflakeLayout.LEAF),
  LEAF_NODE_ID: optional(z.string()),
  LEAF_WORKER_LEASE_MS: integer(1, 86_400_000, 10_000, 'a positive integer (ms)'),
  // Checked against the layout's worker bits once the layout is known (loadConfig).
  LEAF_WORKER_IDS: optional(z.string()),
  LEAF_REGIONS: integer(1, MAX_REGIONS, 1, `an integer from 1 to ${MAX_REGIONS}`),
  LEAF_REGION: integer(0, MAX_REGIONS - 1, 0, `an integer from 0 to ${MAX_REGIONS - 1}`),
  LEAF_BENCH_ROUTES: onOff(false),
  LEAF_RUNWAY_WARN_SECONDS: integer(1, 86_400, 120, 'a whole number of seconds from 1 to 86400'),
  LEAF_TOKEN_REFRESH_MS: integer(100, 600_000, 5_000, 'an integer from 100 to 600000 (ms)'),
  LEAF_NODE_HEARTBEAT_MS: integer(100, 600_000, 3_000, 'an integer from 100 to 600000 (ms)'),
  LEAF_NODE_GONE_MS: integer(1, 86_400_000, 10_000, 'a positive integer (ms)'),
  LEAF_NODE_PRUNE_MS: integer(1, 365 * 86_400_000, 86_400_000, 'a positive integer (ms)'),
  LEAF_NODE_ADDRESS: optional(
    z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, { message: 'host:port where other nodes reach this one' }),
  ),
  LEAF_ORDER_LEASE_MS: integer(500, 600_000, 5_000, 'an integer from 500 to 600000 (ms)'),
  LEAF_ORDER_MARGIN_MS: integer(50, 60_000, 1_000, 'an integer from 50 to 60000 (ms)'),
  LEAF_ORDER_POLL_MS: integer(100, 60_000, 1_000, 'an integer from 100 to 60000 (ms)'),
  LEAF_REQUEST_TIMEOUT_MS: integer(1_000, 300_000, 10_000, 'an integer from 1000 to 300000 (ms)'),
  LEAF_ORDER_CLIENT_LEASE_MS: integer(1_000, 3_600_000, 60_000, 'an integer from 1000 to 3600000 (ms)'),
  LEAF_METRICS_TAGS: optional(
    z.string().refine((v) => parseMetricsTags(v) !== undefined, { message: METRICS_TAGS_GRAMMAR }),
  ).transform((v) => (v === undefined ? DEFAULT_METRICS_TAGS : (parseMetricsTags(v) as MetricsTagSelection))),
  LEAF_SEGMENT_SEMANTICS: optional(z.enum(SEMANTICS, { message: 'leaf or leaf-ts' })).transform((v) => v ?? null),
  LEAF_TRUSTED_PROXIES: optional(
    z.string().transform((v, ctx) => {
      const parsed = parseTrustedProxies(v);
      if (Array.isArray(parsed)) return parsed;
      ctx.addIssue({ code: 'custom', message: `${TRUSTED_PROXIES_GRAMMAR} (${parsed.problem})` });
      return z.NEVER;
    }),
  ).transform((v) => v ?? []),
});

/** Throws LeafError('invalid_config'), one line per bad variable. */
export function loadConfig(env: Env, now: number = Date.now()): LeafConfig {
  const parsed = ENV_SCHEMA.safeParse(env);
  const workerIds = readWorkerIds(env);
  if (!parsed.success || typeof workerIds === 'string') {
    const lines = (parsed.error?.issues ?? []).map((issue) => {
      const name = String(issue.path[0]);
      return `${name} must be ${issue.message} (got ${shown(name, env[name])})`;
    });
    if (typeof workerIds === 'string') lines.push(workerIds);
    throw new LeafError('invalid_config', lines.join('\n'));
  }
  const e = parsed.data;
  const opaqueKeys = readOpaqueKeys(e);
  if (e.LEAF_REGION >= e.LEAF_REGIONS) {
    throw new LeafError(
      'invalid_config',
      `LEAF_REGION must be below LEAF_REGIONS (${e.LEAF_REGIONS}): regions are numbered from 0 (got ${shown('LEAF_REGION', env.LEAF_REGION)})`,
    );
  }
  const layout = layoutWithRegions(e.LEAF_SNOWFLAKE_LAYOUT, e.LEAF_REGIONS);
  if (!(layout instanceof SnowflakeLayout)) {
    throw new LeafError(
      'invalid_config',
      `LEAF_SNOWFLAKE_LAYOUT ${e.LEAF_SNOWFLAKE_LAYOUT.text} cannot carry ${e.LEAF_REGIONS} regions (LEAF_REGIONS): ${layout.problem}`,
    );
  }
  if (e.LEAF_SNOWFLAKE_EPOCH > now) {
    throw new LeafError(
      'invalid_config',
      `LEAF_SNOWFLAKE_EPOCH must not be in the future (got ${JSON.stringify(env.LEAF_SNOWFLAKE_EPOCH)})`,
    );
  }
  // A layout that runs out within a year refuses the start: IDs would stop (or, elsewhere, wrap) in production.
  if (e.LEAF_SNOWFLAKE) checkLifetime(layout, e.LEAF_SNOWFLAKE_EPOCH, now);
  if (e.LEAF_NODE_GONE_MS <= 2 * e.LEAF_NODE_HEARTBEAT_MS) {
    // One late beat must not make a live node look gone (and let another process take its identity).
    throw new LeafError(
      'invalid_config',
      `LEAF_NODE_GONE_MS must be more than twice LEAF_NODE_HEARTBEAT_MS (${e.LEAF_NODE_HEARTBEAT_MS} ms) (got ${unset(env.LEAF_NODE_GONE_MS) === undefined ? `the default ${e.LEAF_NODE_GONE_MS}` : shown('LEAF_NODE_GONE_MS', env.LEAF_NODE_GONE_MS)})`,
    );
  }
  if (e.LEAF_NODE_PRUNE_MS < e.LEAF_NODE_GONE_MS) {
    throw new LeafError(
      'invalid_config',
      `LEAF_NODE_PRUNE_MS must be at least LEAF_NODE_GONE_MS (${e.LEAF_NODE_GONE_MS} ms) (got ${shown('LEAF_NODE_PRUNE_MS', env.LEAF_NODE_PRUNE_MS)})`,
    );
  }
  if (e.LEAF_ORDER_MARGIN_MS * 3 > e.LEAF_ORDER_LEASE_MS) {
    // The owner stops a margin early and renews three times per lease: a margin above a third leaves no time to.
    throw new LeafError(
      'invalid_config',
      `LEAF_ORDER_MARGIN_MS must be at most a third of LEAF_ORDER_LEASE_MS (${e.LEAF_ORDER_LEASE_MS} ms) (got ${e.LEAF_ORDER_MARGIN_MS})`,
    );
  }
  const minMargin = minOrderMarginMs(e.LEAF_ORDER_LEASE_MS);
  if (e.LEAF_ORDER_MARGIN_MS < minMargin) {
    // The lease holds while clocks run apart in rate by less than 2m / (L − m) (docs/design.md#clocks-and-leases).
    const tolerated = ((2 * e.LEAF_ORDER_MARGIN_MS) / (e.LEAF_ORDER_LEASE_MS - e.LEAF_ORDER_MARGIN_MS)) * 100;
    throw new LeafError(
      'invalid_config',
      `LEAF_ORDER_MARGIN_MS must be at least ${minMargin} with LEAF_ORDER_LEASE_MS ${e.LEAF_ORDER_LEASE_MS}, so that clocks running ${MIN_DRIFT_PERCENT} % apart in rate cannot break a strict tag's order (got ${e.LEAF_ORDER_MARGIN_MS}: it tolerates ${tolerated.toPrecision(2)} %)`,
    );
  }
  const location: StoreLocation =
    e.DATABASE_URL === undefined
      ? { kind: 'sqlite', sqliteFile: e.LEAF_SQLITE_FILE ?? DEFAULT_SQLITE_FILE }
      : storeUrlTarget(e.DATABASE_URL);
  const workerIndex = e.LEAF_WORKER_INDEX === undefined ? null : Number(e.LEAF_WORKER_INDEX);
  // Each cluster worker is its own node: the worker index keeps identities unique and stable across restarts.
  const nodeId = (e.LEAF_NODE_ID ?? `${os.hostname()}:${e.PORT}`) + (workerIndex === null ? '' : `#${workerIndex}`);
  return {
    port: e.PORT,
    host: e.HOST,
    dev: e.NODE_ENV !== 'production',
    fastLane: e.LEAF_FAST_LANE,
    giveBack: e.LEAF_GIVE_BACK,
    claimLog: { leaseValidMs: e.LEAF_RANGE_LEASE_VALID_MS, days: e.LEAF_CLAIM_LOG_DAYS },
    logLevel: e.LEAF_LOG_LEVEL,
    workers: e.LEAF_WORKERS,
    workerIndex,
    store: {
      ...location,
      migrationsDir: path.resolve(/*turbopackIgnore: true*/ e.LEAF_MIGRATIONS_DIR ?? 'drizzle'),
    },
    // A generated token lives beside the SQLite file, else in ./data.
    dataDir: path.resolve(
      /*turbopackIgnore: true*/ e.LEAF_DATA_DIR ??
        (location.kind === 'sqlite'
          ? path.dirname(path.resolve(/*turbopackIgnore: true*/ location.sqliteFile))
          : 'data'),
    ),
    adminToken: e.LEAF_ADMIN_TOKEN ?? null,
    idToken: e.LEAF_ID_TOKEN ?? null,
    opaqueKeys,
    tokenRefreshMs: e.LEAF_TOKEN_REFRESH_MS,
    snowflake: {
      enabled: e.LEAF_SNOWFLAKE,
      epochMs: e.LEAF_SNOWFLAKE_EPOCH,
      minId: e.LEAF_SNOWFLAKE_MIN_ID,
      leaseMs: e.LEAF_WORKER_LEASE_MS,
      workerIds: workerIds ?? WorkerIdSet.all(layout.maxWorkerId),
      layout,
    },
    node: {
      id: nodeId,
      // A wildcard bind says nothing to the operator reading a conflict line on another machine: name the host.
      address: e.LEAF_NODE_ADDRESS ?? `${WILDCARD_HOSTS.has(e.HOST) ? os.hostname() : e.HOST}:${e.PORT}`,
      heartbeatMs: e.LEAF_NODE_HEARTBEAT_MS,
      goneMs: e.LEAF_NODE_GONE_MS,
      pruneMs: e.LEAF_NODE_PRUNE_MS,
    },
    ordered: {
      leaseMs: e.LEAF_ORDER_LEASE_MS,
      marginMs: e.LEAF_ORDER_MARGIN_MS,
      pollMs: e.LEAF_ORDER_POLL_MS,
      clientLeaseMs: e.LEAF_ORDER_CLIENT_LEASE_MS,
    },
    benchRoutes: e.LEAF_BENCH_ROUTES,
    runwayWarnSeconds: e.LEAF_RUNWAY_WARN_SECONDS,
    metricsTags: e.LEAF_METRICS_TAGS,
    segmentSemantics: e.LEAF_SEGMENT_SEMANTICS,
    region: { region: e.LEAF_REGION, regions: e.LEAF_REGIONS },
    trustedProxies: e.LEAF_TRUSTED_PROXIES,
    requestTimeoutMs: e.LEAF_REQUEST_TIMEOUT_MS,
  };
}

/** LEAF_WORKER_IDS checked against the layout's worker bits: the set, null for all (or a bad layout), or the line. */
function readWorkerIds(env: Env): WorkerIdSet | null | string {
  const text = env.LEAF_WORKER_IDS;
  const rawLayout = env.LEAF_SNOWFLAKE_LAYOUT;
  const named = rawLayout ? SnowflakeLayout.parse(rawLayout) : SnowflakeLayout.LEAF;
  const regions = Number(env.LEAF_REGIONS || 1);
  const layout = named instanceof SnowflakeLayout ? layoutWithRegions(named, regions) : named;
  if (!text || !(layout instanceof SnowflakeLayout)) return null; // empty counts as unset
  const parsed = parseWorkerIds(text, layout.maxWorkerId);
  if (parsed instanceof WorkerIdSet) return parsed;
  return `LEAF_WORKER_IDS must be ${workerIdsGrammar(layout.maxWorkerId)} (${parsed.problem}) (got ${shown('LEAF_WORKER_IDS', text)})`;
}

/** The layout with room for the regions (a bad LEAF_REGIONS is refused on its own line: take one region then). */
function layoutWithRegions(layout: SnowflakeLayout, regions: number): SnowflakeLayout | { problem: string } {
  return layout.forRegions(Number.isInteger(regions) && regions >= 1 && regions <= MAX_REGIONS ? regions : 1);
}

/** A refused value as the start-up line shows it: secrets by length only, a database URL by its scheme only. */
function shown(name: string, value: string | undefined): string {
  if (value === undefined) return 'nothing';
  if (name.endsWith('_TOKEN') || name.endsWith('_KEY')) return `${value.length} characters`;
  if (name === 'DATABASE_URL') return JSON.stringify(value.includes(':') ? `${value.split(':')[0]}:…` : value);
  return JSON.stringify(value);
}

const KEY = Symbol.for('leaf-ts.config');

/** Read on first use and kept on globalThis: server.ts and Next's bundle share one parse. */
export function processConfig(): LeafConfig {
  const g = globalThis as unknown as Record<symbol, LeafConfig | undefined>;
  return (g[KEY] ??= loadConfig(process.env));
}

/** The clock-rate difference every lease setting must tolerate (ntpd slews up to 0.05 %; a VM may drift more). */
export const MIN_DRIFT_PERCENT = 1;

/** The smallest margin for a lease of `leaseMs` tolerating MIN_DRIFT_PERCENT: 2m / (L − m) ≥ ρ ⇔ m ≥ ρL / (2 + ρ). */
export function minOrderMarginMs(leaseMs: number): number {
  const rho = MIN_DRIFT_PERCENT / 100;
  return Math.ceil((rho * leaseMs) / (2 + rho));
}
