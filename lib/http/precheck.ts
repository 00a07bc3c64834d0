import type { IdResponse } from './idHandler';

/** Admin bodies are small JSON: anything larger is refused before it is read. */
export const MAX_BODY_BYTES = 16 * 1024;

/** Methods Next's handlers accept; anything else (TRACE, PROPFIND, …) would reach Next and come back a bare 500. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });

export function jsonError(status: number, code: string, message: string, extra: Record<string, string> = {}): IdResponse {
  return { status, headers: { ...JSON_HEADERS, ...extra }, body: JSON.stringify({ error: { code, message } }) };
}

/**
 * Answers, before any lane, the requests no route should see: unknown methods (405) and a declared body larger
 * than any route accepts (413, at once — not after buffering it). Null for everything else.
 */
export function precheck(method: string, url: string, contentLength: string | undefined): IdResponse | null {
  if (!KNOWN_METHODS.has(method)) {
    return jsonError(405, 'method_not_allowed', `${method} is not supported.`, { allow: 'GET, POST, PATCH, DELETE' });
  }
  if (contentLength !== undefined && url.startsWith('/api/') && Number(contentLength) > MAX_BODY_BYTES) {
    return jsonError(413, 'payload_too_large', `Bodies are limited to ${MAX_BODY_BYTES} bytes.`, { connection: 'close' });
  }
  return null;
}
