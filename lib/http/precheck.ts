import { LeafError } from '../errors';
import { type Answer, errorAnswer } from './answer';
import { payloadTooLarge } from './body';
import { BODY_LIMITS } from './bodyLimits';

/** Methods Next's handlers accept; anything else (TRACE, PROPFIND, …) would reach Next and come back a bare 500. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
export const ALLOWED_METHODS = 'GET, POST, PATCH, DELETE';

/** Before any lane: unknown methods (405) and declared bodies larger than any route takes (413); else null. */
export function precheck(method: string, url: string, contentLength: string | undefined): Answer | null {
  if (!KNOWN_METHODS.has(method)) {
    return errorAnswer(new LeafError('method_not_allowed', `${method} is not supported.`, { allow: ALLOWED_METHODS }));
  }
  if (contentLength !== undefined && url.startsWith('/api/') && Number(contentLength) > BODY_LIMITS.maxBytes) {
    return errorAnswer(payloadTooLarge());
  }
  return null;
}
