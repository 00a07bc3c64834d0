import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { NodeState } from '@/lib/fleet/types';
import { registerFleetGauge } from '@/lib/metrics/fleetGauge';

describe('leaf_fleet_nodes', () => {
  it('reports nodes by state at scrape time, and keeps the last counts while the registry cannot be read', async () => {
    const registry = new Registry();
    let counts: Record<NodeState, number> | Error = new Error('down');
    registerFleetGauge(registry, {
      stateCounts: async () => (counts instanceof Error ? Promise.reject(counts) : counts),
    });
    expect(await registry.metrics()).not.toMatch(/^leaf_fleet_nodes\{/m); // nothing read yet: no made-up zeros
    counts = { up: 2, gone: 1, stopped: 0 };
    const text = await registry.metrics();
    expect(text).toContain('leaf_fleet_nodes{state="up"} 2');
    expect(text).toContain('leaf_fleet_nodes{state="gone"} 1');
    expect(text).toContain('leaf_fleet_nodes{state="stopped"} 0');
    counts = new Error('down again');
    expect(await registry.metrics()).toContain('leaf_fleet_nodes{state="up"} 2');
  });
});
