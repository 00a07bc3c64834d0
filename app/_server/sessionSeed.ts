import { type DehydratedState, QueryClient, dehydrate } from '@tanstack/react-query';
import { cache } from 'react';
import { sessionKeys } from '@/components/console/queryKeys';
import { SESSION_COOKIE, readCookie } from '@/lib/auth/credentials';
import { type Runtime, currentRuntime } from '@/lib/runtime';

/**
 * The running node when this request's cookie names a live session; null when it does not, or the node is starting,
 * or the session cannot be read now (the page then asks, and the API answers the outage). Once per request: the
 * layout and the dashboard both ask.
 */
export const signedInRuntime = cache(async (cookie: string | null): Promise<Runtime | null> => {
  const runtime = currentRuntime();
  const value = readCookie(cookie, SESSION_COOKIE);
  if (runtime === null || value === null) return null;
  try {
    return (await runtime.console.sessions.verify(value, Date.now())) === null ? null : runtime;
  } catch {
    return null;
  }
});

/**
 * The session answer every page would ask for first, put in the HTML, so the header and the pages behind the
 * session guard render at once. Undefined while the node is starting: the page then asks as before.
 */
export async function sessionSeed(cookie: string | null): Promise<DehydratedState | undefined> {
  if (currentRuntime() === null) return undefined;
  const client = new QueryClient();
  client.setQueryData(sessionKeys.all, { authenticated: (await signedInRuntime(cookie)) !== null });
  return dehydrate(client);
}
