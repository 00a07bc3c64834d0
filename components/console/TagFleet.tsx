'use client';

import { stepNeeded } from '@/lib/fleet/runway';
import { Notice } from '../ui/Notice';
import type { FleetTagView, NodeBufferView, TagFleetDetail } from './api';
import { BufferChart } from './BufferChart';
import { NodeBufferCells, NodeBufferHeaders } from './FleetCells';
import { NODE_STATE_LABEL, showInt, showRate, showRunway, runwayLow, stepAdvice } from './display';

/** The tag across the fleet: totals, the runway warning with step advice, and each node's buffer. */
export function TagFleet({ totals, detail }: { totals: FleetTagView; detail: TagFleetDetail }) {
  const warn = detail.runwayWarnSeconds;
  const low = runwayLow(totals.runwaySeconds, warn);
  const advice = worstStep(detail.nodes, warn);
  return (
    <section aria-labelledby="fleet-title" className="card" data-testid="tag-fleet">
      <div className="card-head">
        <h2 id="fleet-title">Fleet</h2>
        <span className="muted small">every node that holds this tag, as its last heartbeat reported it</span>
      </div>
      <dl className="stats">
        <FleetStat label="Fleet rate" value={`${showRate(totals.ratePerSec)} IDs/s`} testId="tag-fleet-rate" />
        <FleetStat label="Fleet buffered" value={showInt(totals.buffered)} testId="tag-fleet-buffered" />
        <FleetStat label="Nodes serving" value={showInt(totals.nodesServing)} testId="tag-fleet-nodes" />
        <FleetStat label="Runway" value={showRunway(totals.runwaySeconds)} testId="tag-fleet-runway" warn={low} />
      </dl>
      {low && (
        <Notice
          kind="warn"
          testId="runway-warning"
          title={`This tag runs dry in ${showRunway(totals.runwaySeconds)} if the database goes away now.`}
        >
          That is under the {showRunway(warn)} a database restart or failover takes (LEAF_RUNWAY_WARN_SECONDS).
        </Notice>
      )}
      {advice !== null && (
        <Notice kind="warn" testId="step-advice" title="The step is too small for this rate.">
          {stepAdvice(advice.step, advice.ratePerSec, warn, advice.needed)}
        </Notice>
      )}
      <BufferChart nodes={detail.nodes} />
      <NodeBuffers nodes={detail.nodes} warn={warn} />
    </section>
  );
}

/** The up node whose step falls furthest short of the outage at its rate; null when every step outlasts it. */
function worstStep(nodes: NodeBufferView[], warn: number): { step: number; ratePerSec: number; needed: number } | null {
  let worst: { step: number; ratePerSec: number; needed: number } | null = null;
  for (const n of nodes) {
    if (n.state !== 'up') continue;
    const needed = stepNeeded(n.step, n.ratePerSec, warn);
    if (needed !== null && (worst === null || needed > worst.needed))
      worst = { step: n.step, ratePerSec: n.ratePerSec, needed };
  }
  return worst;
}

function FleetStat({
  label,
  value,
  testId,
  warn = false,
}: {
  label: string;
  value: string;
  testId: string;
  warn?: boolean;
}) {
  return (
    <div className={`stat ${warn ? 'stat-warn' : ''}`}>
      <dt>{label}</dt>
      <dd data-testid={testId} data-low={warn}>
        {value}
      </dd>
    </div>
  );
}

/** Each node's buffer of the tag. */
function NodeBuffers({ nodes, warn }: { nodes: NodeBufferView[]; warn: number }) {
  if (nodes.length === 0)
    return (
      <p className="muted" data-testid="node-buffers-empty">
        No node holds a buffer for this tag yet.
      </p>
    );
  return (
    <div className="table-wrap">
      <table className="load-table" aria-label="Buffers per node" data-testid="node-buffers">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">State</th>
            <NodeBufferHeaders buffered="Buffered" />
          </tr>
        </thead>
        <tbody>
          {nodes.map((n) => {
            const low = n.state === 'up' && runwayLow(n.runwaySeconds, warn);
            return (
              <tr key={n.nodeId} data-testid={`node-buffer-${n.nodeId}`} data-state={n.state}>
                <th scope="row" className="mono">
                  {n.nodeId}
                </th>
                <td data-label="State">
                  <span className={`state node-state-${n.state}`}>{NODE_STATE_LABEL[n.state]}</span>
                </td>
                <td className="num" data-label="Buffered" data-testid="node-buffer-buffered">
                  {showInt(n.buffered)}
                </td>
                <NodeBufferCells
                  step={n.step}
                  ratePerSec={n.ratePerSec}
                  next={n.next}
                  runwaySeconds={n.runwaySeconds}
                  low={low}
                />
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
