import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '@/lib/audit';
import { RETRYABLE_CODES } from '@/lib/errors';
import { registerFleetGauge } from '@/lib/metrics/fleetGauge';
import { createPrometheusMetrics } from '@/lib/metrics/prometheus';

/** Facts the docs state that the code decides: each list in the docs is checked against the code's, so neither drifts. */
const doc = (name: string) => fs.readFileSync(path.join(__dirname, '../..', name), 'utf8');

describe('the docs say what the code does', () => {
  it('every retryable code is listed where the docs list them', () => {
    for (const file of ['docs/testing.md', 'docs/api.md'])
      for (const code of RETRYABLE_CODES) expect(doc(file), `${file} lists ${code}`).toContain(`\`${code}\``);
  });

  it('every audit action is in the operations guide', () => {
    const ops = doc('docs/operations.md');
    for (const action of AUDIT_ACTIONS) expect(ops, `docs/operations.md lists ${action}`).toContain(`\`${action}\``);
  });

  it("every leaf_ metric a node exports is in the operations guide's metrics table", () => {
    const metrics = createPrometheusMetrics({ tags: { kind: 'top', top: 10 } as never, runwayWarnSeconds: 120 });
    registerFleetGauge(metrics.registry, { stateCounts: async () => ({ up: 1, gone: 0, stopped: 0 }) });
    const names = metrics.registry
      .getMetricsAsArray()
      .map((m) => (m as unknown as { name: string }).name)
      .filter((n) => n.startsWith('leaf_'));
    expect(names.length).toBeGreaterThan(20);
    const table = doc('docs/operations.md')
      .split('\n')
      .filter((l) => l.startsWith('| `leaf_'))
      .join('\n');
    for (const name of names) expect(table, `the metrics table has ${name}`).toMatch(new RegExp('`' + name + '[`{]'));
  });

  it('the README and docs/testing.md give each tier the same time', () => {
    const readme = doc('README.md');
    const testing = doc('docs/testing.md');
    const fast = /npm test\s.*\(~(\d+) min\)/.exec(readme)?.[1];
    const cluster = /`npm run test:cluster` \(~(\d+) min/.exec(readme)?.[1];
    expect(fast).toBeDefined();
    expect(cluster).toBeDefined();
    expect(testing).toMatch(new RegExp(`^npm test .*~${fast} min$`, 'm'));
    expect(testing).toMatch(new RegExp(`^npm run test:cluster .*~${cluster} min$`, 'm'));
  });
});
