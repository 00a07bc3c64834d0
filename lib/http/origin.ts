/**
 * Where a console write comes from: unless a valid Bearer token authenticated it (the pipeline decides, and then
 * ignores the cookie), it must be the console's own origin — whatever else the request carries.
 */
/** The scheme server.ts stamps on every request it hands to Next (overwriting a client's copy), as the client used it. */
export const CLIENT_SCHEME_HEADER = 'x-leaf-client-scheme';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

interface HeaderReader {
  get(name: string): string | null;
}

/**
 * Why a write not authenticated by a Bearer token is refused (its origin is not the console's), or null when it may
 * go on. Only `Sec-Fetch-Site: same-origin` passes: `none` (a bookmark, a typed URL) never carries a console write.
 */
export function foreignWrite(method: string, headers: HeaderReader): string | null {
  if (SAFE_METHODS.has(method.toUpperCase())) return null;
  const site = headers.get('sec-fetch-site');
  if (site !== null) return site === 'same-origin' ? null : `Sec-Fetch-Site: ${site}`;
  const origin = headers.get('origin');
  if (origin === null) return null;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return `Origin: ${origin}`; // "null" (a sandboxed frame) and anything else that is no origin
  }
  return host !== '' && host === headers.get('host') ? null : `Origin: ${origin}`;
}

/** `https` only when a trusted proxy terminated TLS and says so; anyone else's X-Forwarded-Proto is ignored. */
export function requestScheme(
  socketIsTrustedProxy: boolean,
  forwardedProto: string | string[] | undefined,
): 'http' | 'https' {
  if (!socketIsTrustedProxy || forwardedProto === undefined) return 'http';
  // The nearest proxy's word: the last value of a list, as each proxy appends.
  const last = (Array.isArray(forwardedProto) ? forwardedProto.join(',') : forwardedProto).split(',').at(-1);
  return last?.trim().toLowerCase() === 'https' ? 'https' : 'http';
}

/** Whether the request, as server.ts stamped it, reached the console over TLS. */
export function isSecureRequest(headers: HeaderReader): boolean {
  return headers.get(CLIENT_SCHEME_HEADER) === 'https';
}
