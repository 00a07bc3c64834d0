'use client';

import type { NodeRateHistory, RatePoint } from './api';

export type RateSource = 'here' | 'fleet' | `node:${string}`;

/** The rate chart's points for the chosen source: this node's own samples, the fleet's (all nodes' buckets), or one node's. */
export function ratePointsOf(source: RateSource, here: RatePoint[], fleet: NodeRateHistory[] | null): RatePoint[] {
  if (source === 'here' || fleet === null) return here;
  if (source === 'fleet') return fleet.flatMap((n) => n.points);
  return fleet.find((n) => `node:${n.nodeId}` === source)?.points ?? [];
}

/** "Chart: this node / fleet / node X". */
export function RateSourcePicker({
  value,
  nodeIds,
  onChange,
}: {
  value: RateSource;
  nodeIds: string[];
  onChange: (v: RateSource) => void;
}) {
  return (
    <label className="chart-source small">
      Rate of{' '}
      <select value={value} onChange={(e) => onChange(e.target.value as RateSource)} data-testid="chart-source">
        <option value="here">this node (serving the page)</option>
        <option value="fleet">the fleet</option>
        {nodeIds.map((id) => (
          <option key={id} value={`node:${id}`}>
            node {id}
          </option>
        ))}
      </select>
    </label>
  );
}
