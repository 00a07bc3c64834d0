/**
 * The Prometheus exposition is valid for Prometheus's own linter: `promtool check metrics` (Debian's prometheus
 * package, installed when missing) finds nothing in our `leaf_*` series, with tags loaded, loads failed and
 * a worker leased. Node's default series keep their conventional names (`process_*`, `nodejs_*`), once.
 * The shipped alert rules pass `promtool check rules` and their own `promtool test rules` file, and a real
 * Prometheus server scrapes a live node with the bearer token and answers one of our series through its query API.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPrometheusMetrics } from '@/lib/metrics/prometheus';
import { registerFleetGauge } from '@/lib/metrics/fleetGauge';
import { SegmentEngine } from '@/lib/segment/engine';
import { REPO_ROOT, pollFor, startNodeServer, startPrometheus } from '../../tools/harness';
import { ensurePackage, findExecutable } from '../../tools/harness/apt';
import { FakeClock, FakeStore } from '../support/fakes';
import { takeIds } from '../support/clientIds';

let exposition = '';
let promtool = '';

beforeAll(async () => {
  promtool = ensurePackage(
    'prometheus',
    () => findExecutable(['promtool']),
    (line) => process.stderr.write(`[metrics] ${line}\n`),
  );
  const metrics = createPrometheusMetrics({ tags: { kind: 'all' } });
  const clock = new FakeClock();
  const store = new FakeStore([
    { bizTag: 'orders', step: 100 },
    { bizTag: 'users.v2:eu', step: 10 },
  ]);
  const engine = new SegmentEngine({ store, clock, refreshIntervalMs: 0, onLoad: metrics.observeLoad });
  await engine.start();
  metrics.bind(engine, null, { store });
  registerFleetGauge(metrics.registry, { stateCounts: async () => ({ up: 2, gone: 1, stopped: 0 }) });
  for (let i = 0; i < 150; i++) await engine.nextId('orders');
  await engine.nextId('users.v2:eu');
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
    expect(exposition).toMatch(/^leaf_fleet_nodes\{state="up"\} 2$/m);
    expect(exposition).toMatch(/^leaf_segment_loads_total\{biz_tag="orders",outcome="ok"\} \d+$/m);
  });
});

const RULES = path.join(REPO_ROOT, 'ops/prometheus/leaf-alerts.rules.yml');
const RULES_TEST = path.join(REPO_ROOT, 'ops/prometheus/leaf-alerts.test.yml');

describe('alert rules (ops/prometheus)', () => {
  it('pass promtool check rules', () => {
    const r = spawnSync(promtool, ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toMatch(/SUCCESS: 9 rules found/);
    expect(r.status).toBe(0);
  });

  it('fire on synthetic series as promtool test rules expects, summaries and descriptions included', () => {
    const r = spawnSync(promtool, ['test', 'rules', RULES_TEST], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toMatch(/SUCCESS/);
    expect(r.status).toBe(0);
  });
});

describe('live round trip through a real Prometheus server', () => {
  it('scrapes a node with the bearer token and reads our series back through the query API', async () => {
    const log = (line: string) => process.stderr.write(`[metrics] ${line}\n`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-prom-'));
    const token = 'prometheus-round-trip-token';
    const node = await startNodeServer({
      env: {
        ...process.env,
        NODE_ENV: 'production',
        DATABASE_URL: '',
        LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
        LEAF_ADMIN_TOKEN: token,
        LEAF_LOG_LEVEL: 'warn',
      },
      timeoutMs: 30_000,
    });
    let prometheus: Awaited<ReturnType<typeof startPrometheus>> | undefined;
    try {
      expect(await takeIds(`${node.url}/api/id/segment/demo?count=7`)).toHaveLength(7);
      prometheus = await startPrometheus(
        path.join(dir, 'prometheus'),
        { targets: [`127.0.0.1:${node.port}`], bearerToken: token, ruleFiles: [RULES] },
        log,
      );
      const server = prometheus;
      const issued = await pollFor(
        30_000,
        async () => {
          const result = await server.query('leaf_ids_issued_all_total{job="leaf"}');
          return result.length > 0 ? result : undefined;
        },
        500,
      );
      expect(issued?.map((s) => [s.metric.instance, s.value[1]])).toEqual([[`127.0.0.1:${node.port}`, '7']]);
      expect((await server.query('leaf_store_up'))[0]?.value[1]).toBe('1');
      expect((await server.query('up{job="leaf"}'))[0]?.value[1]).toBe('1');
      // Leaf's layout from 2026-01-01: 2^41 ms, about 69.7 years, less the time since.
      const yearsLeft = Number((await server.query('leaf_snowflake_layout_years_left'))[0]?.value[1]);
      expect(yearsLeft).toBeGreaterThan(60);
      expect(yearsLeft).toBeLessThan(69.7);
      // The rules loaded and evaluate against real series (healthy: none firing for this node).
      const rules = (await fetch(`${server.url}/api/v1/rules`).then((r) => r.json())) as {
        data: { groups: Array<{ rules: Array<{ name: string; health: string }> }> };
      };
      const loaded = rules.data.groups.flatMap((g) => g.rules);
      expect(loaded.map((r) => r.name).sort()).toEqual([
        'LeafFleetNodeGone',
        'LeafNodeDown',
        'LeafOrderingChangePending',
        'LeafRegionNumberShared',
        'LeafSegmentLoadsFailing',
        'LeafSegmentRunwayLow',
        'LeafSnowflakeLayoutEnding',
        'LeafSnowflakeLeaseLost',
        'LeafStoreUnreachable',
      ]);
      expect(loaded.every((r) => r.health !== 'err')).toBe(true);
    } finally {
      await prometheus?.stop();
      await node.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
