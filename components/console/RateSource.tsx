'use client';

import type { FleetRatePoint, FleetTagHistory, LoadRecord, NodeTagHistory } from './api';

export type RateSource = 'here' | 'fleet' | `node:${string}`;

/** One node's step over time: its segment loads only (a range lease's size is not the tag's step). */
export interface StepLine {
  nodeId: string;
  points: { t: number; step: number }[];
}

/** A range lease handed to a caller: drawn as a marker, not as a step. */
export interface LeaseMark {
  t: number;
  size: number;
  nodeId: string;
}

/** What the two charts draw for the chosen source, and a line that says what and from where. */
export interface ChartData {
  rate: FleetRatePoint[];
  steps: StepLine[];
  leases: LeaseMark[];
  /** "this node", "the fleet (2 nodes)", "node node-b". */
  from: string;
  /** Nodes whose record could not be read, with why: their part shows as gaps. */
  missing: { nodeId: string; why: string }[];
}

/** The charts' data: this node's own record, the fleet's merged record, or one node's; null while it loads. */
export function chartDataOf(
  source: RateSource,
  here: Pick<NodeTagHistory, 'rate' | 'loads'>,
  fleet: FleetTagHistory | undefined,
): ChartData | null {
  if (source === 'here') return nodeChart({ nodeId: 'this node', ...here }, 'this node');
  if (fleet === undefined) return null;
  const missing = fleet.nodes.flatMap((n) => (n.missing === null ? [] : [{ nodeId: n.nodeId, why: n.missing }]));
  const read = fleet.nodes.flatMap((n) => (n.history === null ? [] : [n.history]));
  if (source === 'fleet') {
    return {
      rate: fleet.rate,
      steps: read.map((h) => stepLine(h.nodeId, h.loads)),
      leases: read.flatMap((h) => leaseMarks(h.nodeId, h.loads)),
      from: `the fleet (${fleet.nodes.length} node${fleet.nodes.length === 1 ? '' : 's'})`,
      missing,
    };
  }
  const nodeId = source.slice('node:'.length);
  const node = fleet.nodes.find((n) => n.nodeId === nodeId);
  if (node?.history) return nodeChart(node.history, `node ${nodeId}`);
  return {
    rate: [],
    steps: [],
    leases: [],
    from: `node ${nodeId}`,
    missing: [{ nodeId, why: node?.missing ?? 'not in the registry' }],
  };
}

function nodeChart(h: Pick<NodeTagHistory, 'nodeId' | 'rate' | 'loads'>, from: string): ChartData {
  return {
    rate: h.rate,
    steps: [stepLine(h.nodeId, h.loads)],
    leases: leaseMarks(h.nodeId, h.loads),
    from,
    missing: [],
  };
}

function stepLine(nodeId: string, loads: LoadRecord[]): StepLine {
  return {
    nodeId,
    points: loads.filter((l) => l.ok && l.purpose === 'segment').map((l) => ({ t: l.at, step: l.step })),
  };
}

function leaseMarks(nodeId: string, loads: LoadRecord[]): LeaseMark[] {
  return loads.filter((l) => l.ok && l.purpose === 'lease').map((l) => ({ t: l.at, size: l.step, nodeId }));
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
      Charts of{' '}
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
