/** The building blocks of the API description's operations (document.ts). */
import { z } from 'zod';
import { type JsonSchema, ref, str } from './jsonSchema';

export type Operation = { [field: string]: unknown };

export const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
export const answer = (description: string, schema: JsonSchema) => ({ description, content: json(schema) });
export const plain = (description: string, pattern = '^[0-9]+$') => ({
  description,
  content: { 'text/plain': { schema: { type: 'string', pattern } } },
});

/** The error answer for each status a group of routes may give (`{"error":{"code","message"}}`). */
export function errors(...statuses: number[]): Record<string, unknown> {
  const text: Record<number, string> = {
    400: 'bad input',
    401: 'no valid credential',
    403: 'a token for other tags, or a console write from another origin',
    404: 'no such tag, node, token, session or route',
    405: 'method not allowed (with Allow)',
    408: 'the request did not arrive whole within LEAF_REQUEST_TIMEOUT_MS (the connection closes)',
    409: 'a change that could issue an ID again',
    413: 'body too large',
    415: 'body not JSON',
    429: 'login locked out (with Retry-After)',
    431: 'headers too large',
    503: 'unavailable; the retryable codes are listed in docs/api.md#errors',
  };
  return Object.fromEntries(statuses.map((s) => [String(s), answer(text[s] ?? 'error', ref('Error'))]));
}

export const ID_ERRORS = errors(400, 401, 403, 404, 405, 408, 431, 503);
export const ADMIN_READ_ERRORS = errors(400, 401, 404, 405, 408, 431, 503);
export const ADMIN_WRITE_ERRORS = errors(400, 401, 403, 404, 405, 408, 409, 413, 415, 431, 503);

/** A request body from the zod schema the route parses it with, as a client sends it. */
export function body(schema: z.ZodType): Operation {
  const jsonSchema = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
  delete (jsonSchema as { $schema?: string }).$schema;
  return { required: true, content: json(jsonSchema as JsonSchema) };
}

export const tagParam = (name = 'tag') => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' },
});
export const countParam = (max: number, required = false) => ({
  name: 'count',
  in: 'query',
  required,
  schema: { type: 'integer', minimum: 1, maximum: max },
});
/** `?format=`: the IDs of a segment answer in a short string form (lib/opaque/shortForms.ts). */
export const formatParam = () => ({
  name: 'format',
  in: 'query',
  required: false,
  schema: { type: 'string', enum: ['decimal', 'base62', 'base32'] },
  description: 'decimal (default), base62, or Crockford base32 with a check symbol',
});
export const queryParam = (name: string, schema: JsonSchema = str) => ({ name, in: 'query', required: false, schema });
export const idSecurity = [{}, { idToken: [] }];
export const adminSecurity = [{ adminToken: [] }, { session: [] }];
