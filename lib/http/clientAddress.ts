/**
 * The client's address for the audit trail and the login throttle. server.ts sets this header on every request it
 * hands to Next, from the socket, overwriting whatever the client sent under that name — so the app trusts it only
 * because server.ts is the one process that can reach Next. The fast lane never reads or sets it.
 */
export const CLIENT_ADDRESS_HEADER = 'x-leaf-client-address';

/** When a request did not come through server.ts (`next dev`). */
export const UNKNOWN_ADDRESS = 'unknown';

/** The socket's remote address as people read it: an IPv4 client on a dual-stack socket without `::ffff:`. */
export function socketAddress(remote: string | undefined): string {
  if (remote === undefined || remote === '') return UNKNOWN_ADDRESS;
  return remote.startsWith('::ffff:') && remote.includes('.') ? remote.slice(7) : remote;
}

/** The address server.ts stamped on the request, or `unknown`. */
export function clientAddress(headers: { get(name: string): string | null }): string {
  const value = headers.get(CLIENT_ADDRESS_HEADER);
  return value === null || value === '' ? UNKNOWN_ADDRESS : value;
}
