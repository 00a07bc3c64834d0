'use client';

import { useSyncExternalStore } from 'react';
import { showTime } from './display';

const never = () => () => undefined;

/** "live · updated 12:00:03", or a warning while polls fail. The time waits for the browser: its zone, not the server's. */
export function LiveStamp({ updatedAt, failing }: { updatedAt: number; failing: boolean }) {
  const inBrowser = useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
  if (updatedAt === 0) return <span className="live muted" />;
  return (
    <span className={`live ${failing ? 'live-stale' : ''}`} aria-live="off">
      <span className="live-dot" aria-hidden="true" />
      {failing ? 'stale' : 'live'}
      {inBrowser && ` · updated ${showTime(updatedAt)}`}
    </span>
  );
}
