import { describe, expect, it } from 'vitest';
import { MonotonicSum } from '@/lib/metrics/monotonicSum';
import { createPrometheusMetrics } from '@/lib/metrics/prometheus';
import { RateTracker } from '@/lib/metrics/rateTracker';
import { parseMetricsTags, selectTags } from '@/lib/metrics/tagSelection';
import { SegmentEngine } from '@/lib/segment/engine';
import { FakeClock, FakeStore, flush, outcome } from '../support/fakes';

/** The value of one series line (`name{labels} value`), or undefined when absent. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
const tagsOf = (text: string, name: string) =>
  [...text.matchAll(new RegExp(`^${name}\\{biz_tag="([^"]+)"\\}`, 'gm'))].map((m) => m[1]);

/** Steps of 100,000 IDs: at these rates no tag's runway is short, so only the rate decides (but see the test of it). */
async function node(tags: number, selection: string, step = 100_000) {
  const clock = new FakeClock();
  const store = new FakeStore(Array.from({ length: tags }, (_, i) => ({ bizTag: `t${i}`, step })));
  const metrics = createPrometheusMetrics({ tags: parseMetricsTags(selection), clock });
  const segments = new SegmentEngine({ store, clock, refreshIntervalMs: 0, onLoad: metrics.observeLoad });
  await segments.start();
  const rates = new RateTracker({ clock });
  metrics.bind(segments, null, { rates, store });
  rates.record(segments.issuedTotals());
  return { clock, store, segments, rates, metrics };
}

describe('LEAF_METRICS_TAGS', () => {
  it('parses top:N, all, none and nothing else', () => {
    expect(parseMetricsTags('TOP:5')).toEqual({ kind: 'top', n: 5 });
    expect(parseMetricsTags('all')).toEqual({ kind: 'all' });
    expect(['top:', 'top:x', 'top:1000001', 'rate>5', ''].map(parseMetricsTags)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('top:N takes the busiest N and every problem tag; none takes nothing', () => {
    const c = [
      { bizTag: 'a', ratePerSec: 1, problem: false },
      { bizTag: 'b', ratePerSec: 9, problem: false },
      { bizTag: 'c', ratePerSec: 5, problem: false },
      { bizTag: 'd', ratePerSec: 0, problem: true },
      { bizTag: 'e', ratePerSec: 0, problem: false },
    ];
    expect([...selectTags({ kind: 'top', n: 2 }, c)].sort()).toEqual(['b', 'c', 'd']);
    expect(selectTags({ kind: 'none' }, c).size).toBe(0);
    expect(selectTags({ kind: 'all' }, c).size).toBe(5);
  });
});

describe('bounded /api/metrics', () => {
  it('labels only the top tags, with node-wide totals over all of them', async () => {
    const { clock, segments, rates, metrics } = await node(50, 'top:3');
    for (let i = 0; i < 10; i++) await segments.takeIds(`t${i}`, 10 + i); // t9 busiest, t0 least busy
    clock.advance(1_000);
    rates.record(segments.issuedTotals());
    const text = await metrics.scrape();
    expect(tagsOf(text, 'leaf_ids_issued_total').sort()).toEqual(['t7', 't8', 't9']);
    expect(value(text, 'leaf_ids_issued_all_total')).toBe(145);
    expect(value(text, 'leaf_metrics_labelled_tags')).toBe(3);
    expect(value(text, 'leaf_segment_tags{state="unloaded"}')).toBe(40);
    expect(value(text, 'leaf_segment_loads_all_total{outcome="ok"}')).toBe(10);
    // t9: 19 IDs/s, 99,981 left in its first segment (the next not yet fetched below 10%) → 5,262.2 s.
    expect(value(text, 'leaf_segment_runway_seconds{biz_tag="t9"}')).toBe(5262.2);
    expect(value(text, 'leaf_segment_runway_short_tags')).toBe(0);
    expect(value(text, 'leaf_store_up')).toBe(1);
    expect(text).not.toMatch(/^leaf_snowflake_lease_ok /m); // snowflake off: absent
  });

  it('always labels a tag whose runway is short or whose loads fail, whatever its rate', async () => {
    const { clock, store, segments, rates, metrics } = await node(5, 'top:0', 1000);
    await segments.takeIds('t1', 100); // 100 IDs/s: 900 left of 1,000 plus a preloaded 2,000 (doubled step) last 29 s
    clock.advance(1_000);
    rates.record(segments.issuedTotals());
    store.failWith = new Error('db down');
    await outcome(() => segments.takeIds('t3', 1)).catch(() => undefined);
    const text = await metrics.scrape();
    expect(value(text, 'leaf_segment_runway_seconds{biz_tag="t1"}')).toBe(29);
    expect(value(text, 'leaf_segment_runway_short_tags')).toBe(1);
    expect(tagsOf(text, 'leaf_ids_issued_total')).toEqual(['t1', 't3']);
    expect(text).toMatch(/^leaf_segment_loads_total\{biz_tag="t3",outcome="failed"\} 1$/m);
    expect(value(text, 'leaf_segment_loads_all_total{outcome="failed"}')).toBe(1);
  });

  it('keeps counters monotonic when a tag drops out of the selection and when a tag is re-created', async () => {
    const { clock, store, segments, rates, metrics } = await node(3, 'top:1');
    const busy = async (tag: string, n: number) => {
      await segments.takeIds(tag, n);
      clock.advance(1_000);
      rates.record(segments.issuedTotals());
      return metrics.scrape();
    };
    expect(value(await busy('t0', 50), 'leaf_ids_issued_total{biz_tag="t0"}')).toBe(50);
    let text = await busy('t1', 80); // t1 is now the busiest: t0's series goes
    expect(tagsOf(text, 'leaf_ids_issued_total')).toEqual(['t1']);
    text = await busy('t0', 100); // and comes back with its total since start, not from 0
    expect(tagsOf(text, 'leaf_ids_issued_total')).toEqual(['t0']);
    expect(value(text, 'leaf_ids_issued_total{biz_tag="t0"}')).toBe(150);
    expect(value(text, 'leaf_ids_issued_all_total')).toBe(230);
    // t1 deleted: its buffer goes, and the total keeps what it issued.
    store.rows.delete('t1');
    await segments.refreshTags();
    await flush();
    text = await metrics.scrape();
    expect(text).not.toMatch(/biz_tag="t1"/);
    expect(value(text, 'leaf_ids_issued_all_total')).toBe(230);
  });

  it('probes the store at most once per TTL, bounded when it hangs', async () => {
    const clock = new FakeClock();
    const metrics = createPrometheusMetrics({ clock, storeProbeTtlMs: 5_000, storeProbeTimeoutMs: 1_000 });
    let pings = 0;
    let hang = false;
    const store = { ping: () => (pings++, hang ? new Promise<void>(() => undefined) : Promise.resolve()) };
    metrics.bind(new SegmentEngine({ store: new FakeStore(), clock, refreshIntervalMs: 0 }), null, { store });
    expect(value(await metrics.scrape(), 'leaf_store_up')).toBe(1);
    await metrics.scrape();
    expect(pings).toBe(1);
    hang = true;
    clock.advance(5_000);
    const scrape = metrics.scrape();
    await flush();
    clock.advance(1_000);
    expect(value(await scrape, 'leaf_store_up')).toBe(0);
    expect(pings).toBe(2);
  });
});

describe('MonotonicSum', () => {
  it('never goes down when a part vanishes or restarts lower', () => {
    const s = new MonotonicSum();
    expect(
      s.update(
        new Map([
          ['a', 5],
          ['b', 7],
        ]),
      ),
    ).toBe(12);
    expect(s.update(new Map([['a', 6]]))).toBe(13);
    expect(
      s.update(
        new Map([
          ['a', 1],
          ['b', 2],
        ]),
      ),
    ).toBe(16);
  });
});
