import type { NodeView } from '@/lib/fleet/types';
import type { Runtime } from '@/lib/runtime';

/** The registry's cached node list (every node with its tags), for the fleet views. */
export function fleetNodes(runtime: Runtime): Promise<readonly NodeView[]> {
  return runtime.fleet.nodes();
}
