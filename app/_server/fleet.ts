import type { FleetReader } from '@/lib/admin/fleetViews';
import type { NodeView } from '@/lib/fleet/types';
import type { Runtime } from '@/lib/runtime';

/** The registry's cached node list, or null on a runtime without a node registry. */
export function fleetReader(_runtime: Runtime): FleetReader | null {
  return null;
}

export async function fleetNodes(runtime: Runtime): Promise<readonly NodeView[] | null> {
  const reader = fleetReader(runtime);
  return reader === null ? null : reader.nodes();
}
