/**
 * The Prometheus exposition is valid for Prometheus's own linter: `promtool check metrics` (Debian's prometheus
 * package, installed when missing) finds nothing in our `leaf_*` series, with tags loaded, loads failed and
 * a worker leased. Node's default series keep their conventional names (`process_*`, `nodejs_*`), once.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPrometheusMetrics } from '@/lib/metrics/prometheus';
import { SegmentEngine } from '@/lib/segment/engine';
import { ensurePackage, findExecutable } from '../../tools/harness/apt';
import { FakeClock, FakeStore } from '../unit/fakes';

let exposition = '';
let promtool = '';

beforeAll(async () => {
  promtool = ensurePackage('prometheus', () => findExecutable(['promtool']), (line) => process.stderr.write(`[metrics] ${line}\n`));
  const metrics = createPrometheusMetrics({ tags: { kind: 'all' } });
  const clock = new FakeClock();
  const store = new FakeStore([
    { bizTag: 'orders', step: 100 },
    { bizTag: 'users.v2:eu', step: 10 },
  ]);
  const engine = new SegmentEngine({ store, clock, refreshIntervalMs: 0, onLoad: metrics.observeLoad });
  await engine.start();
  metrics.bind(engine, null, { store });
  for (let i = 0; i < 150; i++) await engine.next('orders');
  await engine.next('users.v2:eu');
  exposition = await metrics.scrape();
}, 300_000);

describe('Prometheus exposition', () => {
  it('passes promtool check metrics for every leaf_* series', () => {
    const r = spawnSync(promtool, ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
    const problems = `${r.stdout}\n${r.stderr}`.split('\n').filter((line) => line.startsWith('leaf_'));
    expect(problems).toEqual([]);
    // promtool parses the whole text: a syntax error would be a line without a metric name, and exit 1 or 2.
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/error while linting|text format parsing error/i);
  });

  it('names Node series conventionally, without a doubled prefix', () => {
    expect(exposition).toMatch(/^process_cpu_user_seconds_total /m);
    expect(exposition).toMatch(/^nodejs_heap_size_total_bytes /m);
    expect(exposition).not.toMatch(/leaf_process_/);
    expect(exposition).toMatch(/^leaf_ids_issued_total\{biz_tag="orders"\} 150$/m);
    expect(exposition).toMatch(/^leaf_segment_loads_total\{biz_tag="orders",outcome="ok"\} \d+$/m);
  });
});
