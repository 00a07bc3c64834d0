import { type DehydratedState, QueryClient, dehydrate } from '@tanstack/react-query';
import { cache } from 'react';
import { sessionKeys } from '@/components/console/queryKeys';
import { isAuthorized } from '@/lib/auth/credentials';
import { type Runtime, currentRuntime } from '@/lib/runtime';

/**
 * The running node when this request's cookie signs an operator in; null when it does not, or the node is starting.
 * Checked once per request: the layout and the dashboard both ask.
 */
export const signedInRuntime = cache((cookie: string | null): Runtime | null => {
  const runtime = currentRuntime();
  if (runtime === null) return null;
  return isAuthorized(runtime.console.admin.token, { authorization: null, cookie }, Date.now()) ? runtime : null;
});

/**
 * The session answer every page would ask for first, put in the HTML, so the header and the pages behind the
 * session guard render at once. Undefined while the node is starting: the page then asks as before.
 */
export function sessionSeed(cookie: string | null): DehydratedState | undefined {
  if (currentRuntime() === null) return undefined;
  const client = new QueryClient();
  client.setQueryData(sessionKeys.all, { authenticated: signedInRuntime(cookie) !== null });
  return dehydrate(client);
}
