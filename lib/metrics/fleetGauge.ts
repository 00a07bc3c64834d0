import { Gauge, type Registry } from 'prom-client';
import type { NodeRegistry } from '../fleet/registry';

/** `leaf_fleet_nodes{state}` as this node last read the registry; a failed read keeps the last counts. */
export function registerFleetGauge(registry: Registry, fleet: Pick<NodeRegistry, 'stateCounts'>): void {
  let last: Record<string, number> | null = null;
  new Gauge({
    name: 'leaf_fleet_nodes',
    help: 'Nodes in the fleet registry by state (up, gone, stopped), as this node last read it.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect(this: Gauge<'state'>) {
      last = await fleet.stateCounts().catch(() => last);
      this.reset();
      if (last === null) return;
      for (const [state, n] of Object.entries(last)) this.set({ state }, n);
    },
  });
}
