import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SegmentLoadRecord } from '../segment/buffer';
import type { SegmentEngine } from '../segment/engine';
import type { SnowflakeNode } from '../snowflake/node';

/**
 * Prometheus metrics, for an existing Grafana. Gauges and counters of the engine are read at scrape time
 * (collect), so the ID path does no metric work; segment loads are observed as they happen.
 */
export interface PrometheusMetrics {
  registry: Registry;
  observeLoad(bizTag: string, record: SegmentLoadRecord): void;
  /** Binds the scrape-time collectors to the engines once they exist. */
  bind(segments: SegmentEngine, snowflake: SnowflakeNode | null): void;
}

export function createPrometheusMetrics(): PrometheusMetrics {
  const registry = new Registry();
  // Node's own series under their conventional names (process_*, nodejs_*), as every Node dashboard expects them.
  collectDefaultMetrics({ register: registry });
  let segments: SegmentEngine | null = null;
  let snowflake: SnowflakeNode | null = null;

  const loads = new Counter({
    name: 'leaf_segment_loads_total',
    help: 'Segment loads from the store, by outcome.',
    labelNames: ['biz_tag', 'outcome'] as const,
    registers: [registry],
  });
  const loadDuration = new Histogram({
    name: 'leaf_segment_load_duration_seconds',
    help: 'Duration of the store call that claims a segment.',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const perTag = (name: string, help: string, pick: (s: NonNullable<ReturnType<SegmentEngine['snapshot']>>) => number, kind: 'gauge' | 'counter') => {
    const Type = kind === 'gauge' ? Gauge : Counter;
    new Type({
      name,
      help,
      labelNames: ['biz_tag'] as const,
      registers: [registry],
      collect(this: Gauge<'biz_tag'> | Counter<'biz_tag'>) {
        this.reset();
        if (segments === null) return;
        for (const bizTag of segments.tags()) {
          const snap = segments.snapshot(bizTag);
          if (snap === undefined) continue;
          const v = pick(snap);
          if (this instanceof Gauge) this.set({ biz_tag: bizTag }, v);
          else this.inc({ biz_tag: bizTag }, v);
        }
      },
    });
  };
  perTag('leaf_ids_issued_total', 'IDs issued by this node since it started.', (s) => s.issuedTotal, 'counter');
  perTag('leaf_requests_waited_total', 'Requests that found both segments empty and awaited a load.', (s) => s.waits, 'counter');
  perTag('leaf_requests_failed_total', 'Requests that failed (store down, load too slow).', (s) => s.failedRequests, 'counter');
  perTag('leaf_segment_remaining', 'IDs left in the current segment.', (s) => s.current?.remaining ?? 0, 'gauge');
  perTag('leaf_segment_step', 'Step of the most recent segment.', (s) => s.step, 'gauge');
  perTag('leaf_segment_min_step', 'Step stored in the database (the floor of the dynamic step).', (s) => s.minStep, 'gauge');
  perTag('leaf_next_segment_ready', '1 when the next segment is loaded.', (s) => (s.pending === null ? 0 : 1), 'gauge');
  perTag('leaf_max_id_claimed', 'Highest ID this node has claimed.', (s) => s.pending?.max ?? s.current?.max ?? 0, 'gauge');

  new Gauge({
    name: 'leaf_snowflake_worker_id',
    help: 'Leased snowflake worker id (-1 without a lease).',
    registers: [registry],
    collect(this: Gauge) {
      this.set(snowflake?.workerId ?? -1);
    },
  });

  return {
    registry,
    observeLoad(bizTag, record) {
      const outcome = record.ok ? 'ok' : 'failed';
      loads.inc({ biz_tag: bizTag, outcome });
      loadDuration.observe({ outcome }, record.durationMs / 1000);
    },
    bind(s, sf) {
      segments = s;
      snowflake = sf;
    },
  };
}
