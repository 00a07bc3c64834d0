'use client';

import { useHealth } from './queries';

/**
 * The region of the node serving the page (from /api/health): its number of the fleet's regions and its database's
 * identity — two databases showing one number is the mistake to catch (docs/operations.md#regions).
 */
export function RegionLine() {
  const region = useHealth().data?.region;
  if (region == null) return null;
  return (
    <p className="small muted" data-testid="region-line">
      {region.regions === 1 ? (
        <>One region (LEAF_REGIONS unset)</>
      ) : (
        <>
          Region{' '}
          <span className="mono" data-testid="region-number">
            {region.region}
          </span>{' '}
          of {region.regions}
        </>
      )}
      {' · '}database{' '}
      <span className="mono" data-testid="region-database">
        {region.database.slice(0, 8)}
      </span>
    </p>
  );
}
