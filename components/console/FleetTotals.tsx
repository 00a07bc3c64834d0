'use client';

import { showInt, showRate, showRunway, runwayLow } from './display';
import { useFleet } from './queries';

/** The whole fleet in one row of figures (from whichever node serves the page): the same on the dashboard and the Nodes page. */
export function FleetTotals() {
  const fleet = useFleet();
  const f = fleet.data;
  if (f === undefined) return null;
  const low = runwayLow(f.shortestRunway?.seconds ?? null, f.runwayWarnSeconds);
  return (
    <dl className="stats fleet-totals" aria-label="Fleet totals" data-testid="fleet-totals">
      <div className="stat">
        <dt>Nodes up</dt>
        <dd data-testid="fleet-nodes-up">
          {showInt(f.nodes.up)}
          {f.nodes.gone > 0 && <span className="small node-state-gone"> ({f.nodes.gone} gone)</span>}
        </dd>
      </div>
      <div className="stat">
        <dt>Fleet rate</dt>
        <dd data-testid="fleet-rate">{showRate(f.ratePerSec)} IDs/s</dd>
      </div>
      <div className="stat">
        <dt>IDs buffered</dt>
        <dd data-testid="fleet-buffered">{showInt(f.idsBuffered)}</dd>
      </div>
      <div className={`stat ${low ? 'stat-warn' : ''}`}>
        <dt>Shortest runway</dt>
        <dd data-testid="fleet-runway" data-low={low}>
          {showRunway(f.shortestRunway?.seconds ?? null)}
          {f.shortestRunway !== null && (
            <span className="muted small mono">
              {' '}
              {f.shortestRunway.bizTag} @ {f.shortestRunway.nodeId}
            </span>
          )}
        </dd>
        {f.tagsBelowWarn > 0 && (
          <p className="small runway-low" data-testid="fleet-runway-warning">
            {showInt(f.tagsBelowWarn)} {f.tagsBelowWarn === 1 ? 'tag runs' : 'tags run'} dry in under{' '}
            {showRunway(f.runwayWarnSeconds)} without the database
          </p>
        )}
      </div>
    </dl>
  );
}
