import { LeafError, isLeafError } from '../errors';
import type { Logger } from '../log';

/** Every HTTP answer is built here; errors are `{"error":{"code","message"[,"fields"]}}`, never a stack. */
export interface Answer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** IDs and secrets are never cached, and no answer is sniffed into another type (a JSON body run as a script). */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});
export const TEXT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/plain; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});

/** A 200 JSON answer from text already in JSON form (the hot path builds its bodies by concatenation). */
export function jsonText(body: string): Answer {
  return { status: 200, headers: JSON_HEADERS, body };
}

/** A plain-text 200 (the Leaf-compatible routes). */
export function plainText(body: string): Answer {
  return { status: 200, headers: TEXT_HEADERS, body };
}

/** A JSON answer of any value; `headers` adds to (or overrides) the JSON ones. */
export function jsonOk(value: unknown, status = 200, headers?: Readonly<Record<string, string>>): Answer {
  return {
    status,
    headers: headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(value),
  };
}

/** The answer for a typed error: its status, its code and message, `fields` for a form, `Allow` for a 405, `Retry-After` for a 429. */
export function errorAnswer(error: LeafError, headers?: Readonly<Record<string, string>>): Answer {
  const body: { code: string; message: string; fields?: Record<string, string> } = {
    code: error.code,
    message: error.message,
  };
  if (error.fields !== undefined) body.fields = { ...error.fields };
  let extra = error.allow === undefined ? headers : { ...headers, allow: error.allow };
  if (error.retryAfterSeconds !== undefined) extra = { ...extra, 'retry-after': String(error.retryAfterSeconds) };
  return {
    status: error.status,
    headers: extra === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...extra },
    body: JSON.stringify({ error: body }),
  };
}

export function routeNotFound(): LeafError {
  return new LeafError('route_not_found', 'No such route.');
}

export function methodNotAllowed(method: string, allow: string): LeafError {
  return new LeafError('method_not_allowed', `${method} is not allowed here; use ${allow}.`, { allow });
}

export function notFound(): Answer {
  return errorAnswer(routeNotFound());
}

/** A LeafError speaks for itself; anything else is ours: logged with `context`, answered 500 without details. */
export function failure(error: unknown, logger: Logger, context: Record<string, unknown>): Answer {
  if (isLeafError(error)) return errorAnswer(error);
  logger.log('error', 'unexpected_error', { ...context, error });
  return errorAnswer(new LeafError('internal_error', 'Internal error.'));
}

/** For the Next route handlers and the proxy. */
export function toResponse(answer: Answer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/** A whole HTTP/1.1 response as text, for a socket that node:http no longer answers on; it closes the connection. */
export function rawHttp(answer: Answer, reason: string): string {
  const headers = { ...answer.headers, connection: 'close', 'content-length': String(Buffer.byteLength(answer.body)) };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `HTTP/1.1 ${answer.status} ${reason}\r\n${lines.join('\r\n')}\r\n\r\n${answer.body}`;
}
