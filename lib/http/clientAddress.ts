/** The client's address, stamped by server.ts on every request it hands to Next (overwriting a client's copy). */
import { isIP } from 'node:net';
import type { ProxyMatcher } from '../trustedProxies';

export const CLIENT_ADDRESS_HEADER = 'x-leaf-client-address';

/** When a request did not come through server.ts (`next dev`). */
export const UNKNOWN_ADDRESS = 'unknown';

/** The socket's remote address as people read it: an IPv4 client on a dual-stack socket without `::ffff:`. */
export function socketAddress(remote: string | undefined): string {
  if (remote === undefined || remote === '') return UNKNOWN_ADDRESS;
  return remote.startsWith('::ffff:') && remote.includes('.') ? remote.slice(7) : remote;
}

/** The socket's address, or behind a trusted proxy the nearest untrusted hop of X-Forwarded-For, read from the right. */
export function requestAddress(
  remote: string | undefined,
  forwardedFor: string | string[] | undefined,
  proxies: ProxyMatcher | null,
): string {
  const socket = socketAddress(remote);
  if (proxies === null || forwardedFor === undefined || !proxies.trusts(socket)) return socket;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((h) => socketAddress(h.trim()));
  for (const hop of [...hops].reverse()) {
    if (!proxies.trusts(hop)) return isIP(hop) !== 0 ? hop : socket; // not an address: a proxy's mistake, not a client
  }
  return hops[0] ?? socket;
}

/** The address server.ts stamped on the request, or `unknown`. */
export function clientAddress(headers: { get(name: string): string | null }): string {
  const value = headers.get(CLIENT_ADDRESS_HEADER);
  return value === null || value === '' ? UNKNOWN_ADDRESS : value;
}
