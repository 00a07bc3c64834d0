'use client';

import type { TagView } from './api';
import { showInt, showRate, showRunway, runwayLow } from './display';

/** The tag table's fleet headers, beside this node's columns. */
export function FleetHeaders() {
  return (
    <>
      <th scope="col" className="num">
        Fleet IDs/s
      </th>
      <th scope="col" className="num">
        Fleet buffered
      </th>
      <th scope="col" className="num">
        Nodes
      </th>
      <th scope="col" className="num">
        Runway
      </th>
    </>
  );
}

/** A node's buffer columns, shared by a node's tag table and a tag's per-node table; `buffered` names the first. */
export function NodeBufferHeaders({ buffered }: { buffered: string }) {
  return (
    <>
      <th scope="col" className="num">
        {buffered}
      </th>
      <th scope="col" className="num">
        Step
      </th>
      <th scope="col" className="num">
        Rate (IDs/s)
      </th>
      <th scope="col">Next segment</th>
      <th scope="col" className="num">
        Runway
      </th>
    </>
  );
}

/** The cells under NodeBufferHeaders after the buffered one (which each table writes itself). */
export function NodeBufferCells({
  step,
  ratePerSec,
  next,
  runwaySeconds,
  low,
}: {
  step: number;
  ratePerSec: number;
  next: string;
  runwaySeconds: number | null;
  low: boolean;
}) {
  return (
    <>
      <td className="num" data-label="Step">
        {showInt(step)}
      </td>
      <td className="num" data-label="Rate (IDs/s)">
        {showRate(ratePerSec)}
      </td>
      <td data-label="Next segment">{next}</td>
      <td className={`num ${low ? 'runway-low' : ''}`} data-label="Runway">
        {showRunway(runwaySeconds)}
      </td>
    </>
  );
}

/** A tag's fleet figures in its row: summed over the up nodes, runway of the first node to run dry. */
export function FleetCells({ tag, runwayWarnSeconds }: { tag: TagView; runwayWarnSeconds: number | undefined }) {
  const f = tag.fleet;
  if (f === undefined || f === null) {
    return (
      <>
        <td className="num muted" data-label="Fleet IDs/s">
          —
        </td>
        <td className="num muted" data-label="Fleet buffered">
          —
        </td>
        <td className="num muted" data-label="Nodes">
          —
        </td>
        <td className="num muted" data-label="Runway">
          —
        </td>
      </>
    );
  }
  const low = runwayLow(f.runwaySeconds, runwayWarnSeconds);
  return (
    <>
      <td className="num" data-label="Fleet IDs/s" data-testid="fleet-rate-cell">
        {showRate(f.ratePerSec)}
      </td>
      <td className="num" data-label="Fleet buffered" data-testid="fleet-buffered-cell">
        {showInt(f.buffered)}
      </td>
      <td className="num" data-label="Nodes" data-testid="fleet-nodes-cell">
        {f.nodesServing}
      </td>
      <td
        className={`num ${low ? 'runway-low' : ''}`}
        data-label="Runway"
        data-testid="fleet-runway-cell"
        data-low={low}
      >
        {showRunway(f.runwaySeconds)}
        {low && <span className="badge badge-warn">low</span>}
      </td>
    </>
  );
}
