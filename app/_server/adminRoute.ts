import { isAuthorized } from '@/lib/auth/credentials';
import { LeafError, isLeafError } from '@/lib/errors';
import { createLogger } from '@/lib/log';
import { type Runtime, getRuntime } from '@/lib/runtime';
import { ZodError, type ZodType } from 'zod';
import { fieldErrors } from '@/lib/admin/schema';
import { MAX_BODY_BYTES } from '@/lib/http/precheck';

const logger = createLogger();
const NO_STORE = { 'cache-control': 'no-store' };

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...NO_STORE, ...headers } });
}

function errorResponse(error: unknown): Response {
  if (error instanceof ZodError) {
    const fields = fieldErrors(error);
    return json({ error: { code: 'validation_failed', message: 'Some fields are not valid.', fields } }, 400);
  }
  if (isLeafError(error)) return json(error.toBody(), error.status);
  logger.log('error', 'admin_route_failed', { error });
  return json({ error: { code: 'internal_error', message: 'Internal error.' } }, 500);
}

async function runtimeOr503(): Promise<Runtime> {
  try {
    return await getRuntime();
  } catch (cause) {
    throw new LeafError('not_ready', 'The service is starting or cannot reach its store; try again shortly.', { cause });
  }
}

/** Reads and validates a JSON body: bounded size, JSON errors and schema errors as 4xx, never a throw to Next. */
export async function readBody<T>(request: Request, schema: ZodType<T>): Promise<T> {
  const length = Number(request.headers.get('content-length') ?? 0);
  if (length > MAX_BODY_BYTES) throw new LeafError('payload_too_large', `Bodies are limited to ${MAX_BODY_BYTES} bytes.`);
  const type = request.headers.get('content-type') ?? '';
  const text = await request.text();
  if (text.length > 0 && !/^application\/json\b/i.test(type)) {
    throw new LeafError('unsupported_media_type', 'Send the body as application/json.');
  }
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new LeafError('payload_too_large', `Bodies are limited to ${MAX_BODY_BYTES} bytes.`);
  let value: unknown;
  try {
    value = text.length === 0 ? {} : JSON.parse(text);
  } catch {
    throw new LeafError('invalid_request', 'The body is not valid JSON.');
  }
  return schema.parse(value);
}

type Handler<P> = (ctx: { request: Request; runtime: Runtime; params: P }) => Promise<Response>;

/** Wraps a route: runtime, credential check (unless `public`), and typed errors → JSON statuses. */
export function route<P = Record<string, string>>(handler: Handler<P>, options: { public?: boolean } = {}) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      const runtime = await runtimeOr503();
      if (!options.public) {
        const ok = isAuthorized(
          runtime.admin.token,
          { authorization: request.headers.get('authorization'), cookie: request.headers.get('cookie') },
          Date.now(),
        );
        if (!ok) throw new LeafError('unauthorized', 'A valid admin token or session is required.');
      }
      return await handler({ request, runtime, params: await context.params });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** Handlers for the methods a route does not offer: 405 JSON with `Allow`. */
export function methodsNotAllowed(allow: string) {
  const handler = async () => json({ error: { code: 'method_not_allowed', message: `Use ${allow}.` } }, 405, { allow });
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}
