/**
 * The client's address for the audit trail and the login throttle. server.ts sets this header on every request it
 * hands to Next, from the socket (or, from a trusted proxy, its X-Forwarded-For), overwriting whatever the client
 * sent under that name — so the app trusts it only because server.ts is the one process that can reach Next. The
 * fast lane never reads or sets it.
 */
import { isIP } from 'node:net';
import type { ProxyMatcher } from './trustedProxies';

export const CLIENT_ADDRESS_HEADER = 'x-leaf-client-address';

/** When a request did not come through server.ts (`next dev`). */
export const UNKNOWN_ADDRESS = 'unknown';

/** The socket's remote address as people read it: an IPv4 client on a dual-stack socket without `::ffff:`. */
export function socketAddress(remote: string | undefined): string {
  if (remote === undefined || remote === '') return UNKNOWN_ADDRESS;
  return remote.startsWith('::ffff:') && remote.includes('.') ? remote.slice(7) : remote;
}

/**
 * Who sent the request: the socket's address, unless that is a trusted proxy; then the nearest address in
 * X-Forwarded-For (read from the right, as each proxy appends) that is not a trusted proxy itself. A client can
 * write anything at the left of the header, so nothing left of the first untrusted hop is believed.
 */
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
