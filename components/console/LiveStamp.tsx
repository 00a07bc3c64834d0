'use client';

import { showTime } from './display';

/** "live · updated 12:00:03", or a warning while polls fail. */
export function LiveStamp({ updatedAt, failing }: { updatedAt: number; failing: boolean }) {
  if (updatedAt === 0) return <span className="live muted" />;
  return (
    <span className={`live ${failing ? 'live-stale' : ''}`} aria-live="off">
      <span className="live-dot" aria-hidden="true" />
      {failing ? 'stale' : 'live'} · updated {showTime(updatedAt)}
    </span>
  );
}
