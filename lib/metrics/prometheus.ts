import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { type Clock, systemClock } from '../clock';
import { bufferedIds, nextSegmentState } from '../fleet/buffered';
import { runwaySeconds } from '../fleet/runway';
import type { SegmentLoadRecord } from '../segment/buffer';
import type { SegmentEngine } from '../segment/engine';
import type { TagSnapshot } from '../segment/snapshot';
import type { SnowflakeNode } from '../snowflake/node';
import { MonotonicSum } from './monotonicSum';
import { DEFAULT_METRICS_TAGS, type MetricsTagSelection, selectTags } from './tagSelection';

/** Prometheus metrics, read at scrape time (nothing on the ID path); per-tag series only for the tags selected. */
export interface PrometheusMetrics {
  registry: Registry;
  observeLoad(bizTag: string, record: SegmentLoadRecord): void;
  /** Binds the scrape-time collectors to the engines once they exist. */
  bind(segments: SegmentEngine, snowflake: SnowflakeNode | null, sources?: MetricsSources): void;
  /** Brings every scrape-time series up to date and renders the exposition (what GET /api/metrics answers). */
  scrape(): Promise<string>;
}

export interface MetricsSources {
  /** IDs per second per tag (the console's rate tracker); without it every tag counts as idle. */
  rates?: { ratePerSec(bizTag: string): number };
  /** Probed at most once per `storeProbeTtlMs` for `leaf_store_up`; without it the series is absent. */
  store?: { ping(): Promise<void> };
  /** Strict tags (lib/ordered): requests relayed to owners, leases taken and lost, tags owned here. */
  ordered?: {
    forwarded: number;
    acquired: number;
    lost: number;
    size: number;
    pending: number;
    clients: { size: number };
    owned(): string[];
  };
  /** This node's region and its database's identity: `leaf_region_info`, so two databases of one number show. */
  region?: { region: number; regions: number; database: string };
}

export interface PrometheusOptions {
  tags?: MetricsTagSelection;
  clock?: Clock;
  /** A busy tag whose buffer lasts less than this is a problem tag, always labelled (LEAF_RUNWAY_WARN_SECONDS). */
  runwayWarnSeconds?: number;
  /** A tag whose load failed within this long is a problem tag. */
  failedLoadWindowMs?: number;
  storeProbeTtlMs?: number;
  storeProbeTimeoutMs?: number;
}

const STATES = ['unloaded', 'ready', 'loading', 'failed', 'none'] as const;

interface TagLoads {
  ok: number;
  failed: number;
  lastFailedAt: number;
}

export function createPrometheusMetrics(options: PrometheusOptions = {}): PrometheusMetrics {
  const selection = options.tags ?? DEFAULT_METRICS_TAGS;
  const clock = options.clock ?? systemClock;
  const runwayWarnSeconds = options.runwayWarnSeconds ?? 120;
  const failedLoadWindowMs = options.failedLoadWindowMs ?? 10 * 60_000;
  const registry = new Registry();
  // Node's own series under their conventional names (process_*, nodejs_*), as every Node dashboard expects them.
  collectDefaultMetrics({ register: registry });
  let segments: SegmentEngine | null = null;
  let snowflake: SnowflakeNode | null = null;
  let sources: MetricsSources = {};
  const loadCounts = new Map<string, TagLoads>();
  const probeStore = cachedProbe(clock, options.storeProbeTtlMs ?? 5_000, options.storeProbeTimeoutMs ?? 1_000);

  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [registry] });
  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new Counter({ name, help, labelNames, registers: [registry] });

  // Per tag, for the selected tags.
  const perTag: Array<{ metric: Gauge | Counter; pick: (s: TagSnapshot) => number }> = [
    {
      metric: counter('leaf_ids_issued_total', 'IDs issued by this node since it started.', ['biz_tag']),
      pick: (s) => s.issuedTotal,
    },
    {
      metric: counter('leaf_requests_waited_total', 'Requests that found both segments empty and awaited a load.', [
        'biz_tag',
      ]),
      pick: (s) => s.waits,
    },
    {
      metric: counter('leaf_requests_failed_total', 'Requests that failed (store down, load too slow).', ['biz_tag']),
      pick: (s) => s.failedRequests,
    },
    {
      metric: gauge('leaf_segment_remaining', 'IDs left in the current segment.', ['biz_tag']),
      pick: (s) => s.current?.remaining ?? 0,
    },
    { metric: gauge('leaf_segment_step', 'Step of the most recent segment.', ['biz_tag']), pick: (s) => s.step },
    {
      metric: gauge('leaf_segment_min_step', 'Step stored in the database (the floor of the dynamic step).', [
        'biz_tag',
      ]),
      pick: (s) => s.minStep,
    },
    {
      metric: gauge('leaf_next_segment_ready', '1 when the next segment is loaded.', ['biz_tag']),
      pick: (s) => (s.pending === null ? 0 : 1),
    },
    {
      metric: gauge('leaf_max_id_claimed', 'Highest ID this node has claimed.', ['biz_tag']),
      pick: (s) => Number(s.pending?.max ?? s.current?.max ?? 0),
    },
  ];
  const runway = gauge(
    'leaf_segment_runway_seconds',
    "Seconds this node's buffer of the tag lasts at its current rate without the database (busy tags only).",
    ['biz_tag'],
  );
  const loads = counter('leaf_segment_loads_total', 'Segment loads from the store, by outcome.', [
    'biz_tag',
    'outcome',
  ]);

  // Node-wide, always present.
  const loadsAll = counter('leaf_segment_loads_all_total', 'Segment loads from the store over every tag, by outcome.', [
    'outcome',
  ]);
  for (const outcome of ['ok', 'failed']) loadsAll.inc({ outcome }, 0);
  const loadDuration = new Histogram({
    name: 'leaf_segment_load_duration_seconds',
    help: 'Duration of the store call that claims a segment.',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const totals = [
    {
      metric: counter('leaf_ids_issued_all_total', 'IDs issued by this node since it started, over every tag.'),
      sum: new MonotonicSum(),
      pick: (s: TagSnapshot) => s.issuedTotal,
    },
    {
      metric: counter('leaf_requests_waited_all_total', 'Requests that awaited a load, over every tag.'),
      sum: new MonotonicSum(),
      pick: (s: TagSnapshot) => s.waits,
    },
    {
      metric: counter('leaf_requests_failed_all_total', 'Requests that failed, over every tag.'),
      sum: new MonotonicSum(),
      pick: (s: TagSnapshot) => s.failedRequests,
    },
  ];
  const tagStates = gauge(
    'leaf_segment_tags',
    'Tags known to this node, by the state of their next segment (unloaded: no segment yet).',
    ['state'],
  );
  const labelled = gauge(
    'leaf_metrics_labelled_tags',
    'Tags with per-tag series in this exposition (LEAF_METRICS_TAGS).',
  );
  const shortRunway = gauge(
    'leaf_segment_runway_short_tags',
    'Busy tags whose buffer on this node lasts less than the runway warning.',
  );
  const storeUp = gauge(
    'leaf_store_up',
    "1 when this node's store answered its last probe (probed at most every few seconds).",
  );
  const workerId = gauge('leaf_snowflake_worker_id', 'Leased snowflake worker id (-1 without a lease).');
  const leaseOk = gauge(
    'leaf_snowflake_lease_ok',
    '1 when the snowflake worker holds a renewed lease; absent when snowflake mode is off.',
  );
  const yearsLeft = gauge(
    'leaf_snowflake_layout_years_left',
    "Years until the snowflake layout's time bits run out for its epoch; absent when snowflake mode is off.",
  );

  const regionInfo = gauge(
    'leaf_region_info',
    "Always 1: this node's region (LEAF_REGION), the region count and its database's identity.",
    ['region', 'regions', 'database'],
  );

  const forwarded = counter('leaf_ordered_forwarded_total', "Requests for strict tags relayed to the tag's owner.");
  const ownership = counter('leaf_ordered_ownership_changes_total', 'Strict-tag leases this node took or lost.', [
    'change',
  ]);
  const owned = gauge('leaf_ordered_tags_owned', 'Strict tags this node owns and serves now.');
  const strictTags = gauge('leaf_ordered_strict_tags', 'Tags set to ordering strict, as this node last read them.');
  const pendingChanges = gauge(
    'leaf_ordered_pending_changes',
    'Changes to strict, as this node last read them, that not every process has acknowledged yet.',
  );
  const clientsVouched = gauge('leaf_ordered_clients_vouched', 'LeafClient processes this node vouches for now.');

  function updateOrdered(): void {
    const ordered = sources.ordered;
    if (ordered === undefined) return;
    forwarded.reset();
    forwarded.inc(ordered.forwarded);
    ownership.reset();
    ownership.inc({ change: 'acquired' }, ordered.acquired);
    ownership.inc({ change: 'lost' }, ordered.lost);
    owned.set(ordered.owned().length);
    strictTags.set(ordered.size);
    pendingChanges.set(ordered.pending);
    clientsVouched.set(ordered.clients.size);
  }

  function update(): void {
    updateOrdered();
    for (const m of [...perTag.map((p) => p.metric), runway, loads]) m.reset();
    tagStates.reset();
    if (segments === null) return;
    const now = clock.now();
    const snaps: TagSnapshot[] = [];
    const candidates = [];
    const states = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<(typeof STATES)[number], number>;
    let short = 0;
    const rates = new Map<string, number>();
    for (const bizTag of segments.tags()) {
      const snap = segments.snapshot(bizTag);
      if (snap === undefined) continue;
      snaps.push(snap);
      const rate = sources.rates?.ratePerSec(bizTag) ?? 0;
      rates.set(bizTag, rate);
      const r = runwaySeconds(bufferedIds(snap), rate);
      if (r !== null && r < runwayWarnSeconds) short++;
      const failedAt = loadCounts.get(bizTag)?.lastFailedAt ?? -Infinity;
      candidates.push({
        bizTag,
        ratePerSec: rate,
        problem:
          snap.lastError !== null || now - failedAt < failedLoadWindowMs || (r !== null && r < runwayWarnSeconds),
      });
      // The same order as a node's heartbeat (lib/fleet): a loaded next segment is ready even after a failed retry.
      states[snap.current === null ? 'unloaded' : nextSegmentState(snap)]++;
    }
    const chosen = selectTags(selection, candidates);
    for (const snap of snaps) {
      if (!chosen.has(snap.bizTag)) continue;
      const labels = { biz_tag: snap.bizTag };
      for (const { metric, pick } of perTag) {
        if (metric instanceof Gauge) metric.set(labels, pick(snap));
        else metric.inc(labels, pick(snap));
      }
      const r = runwaySeconds(bufferedIds(snap), rates.get(snap.bizTag) ?? 0);
      if (r !== null) runway.set(labels, Math.round(r * 10) / 10);
      const counts = loadCounts.get(snap.bizTag);
      if (counts !== undefined) {
        loads.inc({ ...labels, outcome: 'ok' }, counts.ok);
        loads.inc({ ...labels, outcome: 'failed' }, counts.failed);
      }
    }
    for (const { metric, sum, pick } of totals) {
      metric.reset();
      metric.inc(sum.update(new Map(snaps.map((s) => [s.bizTag, pick(s)]))));
    }
    for (const state of STATES) tagStates.set({ state }, states[state]);
    labelled.set(chosen.size);
    shortRunway.set(short);
  }

  return {
    registry,
    observeLoad(bizTag, record) {
      const outcome = record.ok ? 'ok' : 'failed';
      let counts = loadCounts.get(bizTag);
      if (counts === undefined) loadCounts.set(bizTag, (counts = { ok: 0, failed: 0, lastFailedAt: -Infinity }));
      if (record.ok) counts.ok++;
      else {
        counts.failed++;
        counts.lastFailedAt = record.at;
      }
      loadsAll.inc({ outcome });
      loadDuration.observe({ outcome }, record.durationMs / 1000);
    },
    bind(s, sf, more = {}) {
      segments = s;
      snowflake = sf;
      sources = more;
      // An unlabelled gauge always prints a value: absent means not registered.
      if (sf === null) registry.removeSingleMetric('leaf_snowflake_lease_ok');
      if (sf === null) registry.removeSingleMetric('leaf_snowflake_layout_years_left');
      if (more.store === undefined) registry.removeSingleMetric('leaf_store_up');
      if (more.region === undefined) registry.removeSingleMetric('leaf_region_info');
      else {
        const { region, regions, database } = more.region;
        regionInfo.set({ region: String(region), regions: String(regions), database }, 1);
      }
    },
    async scrape() {
      update();
      workerId.set(snowflake?.workerId ?? -1);
      if (snowflake !== null) {
        const status = snowflake.status();
        leaseOk.set(['ready', 'fencing'].includes(status.state) ? 1 : 0);
        yearsLeft.set(status.yearsLeft);
      }
      if (sources.store !== undefined) storeUp.set((await probeStore(sources.store)) ? 1 : 0);
      return registry.metrics();
    },
  };
}

/** Whether the store answers, probed at most once per `ttlMs` (shared) and bounded by `timeoutMs`. */
function cachedProbe(
  clock: Clock,
  ttlMs: number,
  timeoutMs: number,
): (store: { ping(): Promise<void> }) => Promise<boolean> {
  let last: { at: number; result: Promise<boolean> } | null = null;
  return (store) => {
    if (last !== null && clock.now() - last.at < ttlMs) return last.result;
    const result = new Promise<boolean>((resolve) => {
      const timer = clock.setTimeout(() => resolve(false), timeoutMs);
      store
        .ping()
        .then(
          () => resolve(true),
          () => resolve(false),
        )
        .finally(() => clock.clearTimeout(timer));
    });
    last = { at: clock.now(), result };
    return result;
  };
}
