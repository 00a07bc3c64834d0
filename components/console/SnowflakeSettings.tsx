'use client';

import { useHealth } from './queries';

/**
 * This node's snowflake settings in one line (from /api/health of the node serving the page): its epoch — marked
 * when it is Leaf's — and the floor every ID must sort above, when one is set.
 */
export function SnowflakeSettings() {
  const snowflake = useHealth().data?.snowflake;
  if (snowflake === undefined || snowflake.state === 'off') return null;
  return (
    <p className="small muted" data-testid="snowflake-settings">
      Snowflake on this node: epoch <span className="mono">{snowflake.epoch}</span>
      {snowflake.epochPreset === 'leaf' && <span data-testid="snowflake-preset"> (Leaf&apos;s)</span>}
      {snowflake.minId !== null && (
        <>
          {' · '}IDs above the floor{' '}
          <span className="mono" data-testid="snowflake-floor">
            {snowflake.minId}
          </span>
        </>
      )}
    </p>
  );
}
