import { type DehydratedState, QueryClient, dehydrate } from '@tanstack/react-query';
import { cache } from 'react';
import { sessionKeys } from '@/components/console/queryKeys';
import { SESSION_COOKIE, readCookie } from '@/lib/auth/credentials';
import { type Runtime, currentRuntime } from '@/lib/runtime';

/**
 * Whether this request's cookie names a live session: `unknown` while the node is starting or the session cannot
 * be read now (the database is down — the page then asks, and shows the API's answer rather than the login page).
 * Once per request: the layout and the dashboard both ask.
 */
const sessionState = cache(async (cookie: string | null): Promise<'in' | 'out' | 'unknown'> => {
  const runtime = currentRuntime();
  if (runtime === null) return 'unknown';
  const value = readCookie(cookie, SESSION_COOKIE);
  if (value === null) return 'out';
  try {
    return (await runtime.console.sessions.verify(value, Date.now())) === null ? 'out' : 'in';
  } catch {
    return 'unknown';
  }
});

/** The running node when this request's cookie names a live session; null otherwise, or when that cannot be told. */
export async function signedInRuntime(cookie: string | null): Promise<Runtime | null> {
  return (await sessionState(cookie)) === 'in' ? currentRuntime() : null;
}

/**
 * The session answer every page would ask for first, put in the HTML, so the header and the pages behind the
 * session guard render at once. Undefined when it cannot be told now: the page then asks as before.
 */
export async function sessionSeed(cookie: string | null): Promise<DehydratedState | undefined> {
  const state = await sessionState(cookie);
  if (state === 'unknown') return undefined;
  const client = new QueryClient();
  client.setQueryData(sessionKeys.all, { authenticated: state === 'in' });
  return dehydrate(client);
}
