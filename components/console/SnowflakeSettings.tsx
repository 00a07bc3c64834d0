'use client';

import { useHealth } from './queries';

/**
 * This node's snowflake settings in one line (from /api/health of the node serving the page): its layout and how
 * long it lasts, its epoch — marked when it is Leaf's — and the floor every ID must sort above, when one is set.
 */
export function SnowflakeSettings() {
  const snowflake = useHealth().data?.snowflake;
  if (snowflake === undefined || snowflake.state === 'off') return null;
  return (
    <p className="small muted" data-testid="snowflake-settings">
      Snowflake on this node: layout{' '}
      <span className="mono" data-testid="snowflake-layout" title={snowflake.layoutBits}>
        {snowflake.layout}
      </span>{' '}
      ({snowflake.layoutBits}), lasting until{' '}
      <span
        className={snowflake.yearsLeft < 5 ? 'mono text-warn' : 'mono'}
        data-testid="snowflake-ends"
        title={`${snowflake.yearsLeft.toFixed(1)} years left`}
      >
        {snowflake.endsAt === null ? 'beyond any date' : snowflake.endsAt.slice(0, 10)}
      </span>{' '}
      ({snowflake.yearsLeft.toFixed(1)} years) · epoch <span className="mono">{snowflake.epoch}</span>
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
