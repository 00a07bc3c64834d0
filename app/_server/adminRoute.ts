import { isAuthorized } from '@/lib/auth/credentials';
import { LeafError } from '@/lib/errors';
import { failure, errorAnswer, jsonOk, methodNotAllowed, toResponse } from '@/lib/http/answer';
import { type Runtime, processLogger, runtimeOrNotReady } from '@/lib/runtime';

/** A JSON Response through the one answer builder. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return toResponse(jsonOk(body, status, headers));
}

type Handler<P> = (ctx: { request: Request; runtime: Runtime; params: P }) => Promise<Response>;

/** Wraps a route: runtime, credential check (unless `public`), and typed errors → JSON statuses. */
export function route<P = Record<string, string>>(handler: Handler<P>, options: { public?: boolean } = {}) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      const runtime = await runtimeOrNotReady();
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
      return toResponse(failure(error, processLogger(), { method: request.method, path: new URL(request.url).pathname }));
    }
  };
}

/** Handlers for the methods a route does not offer: 405 JSON with `Allow`. */
export function methodsNotAllowed(allow: string) {
  const handler = async (request: Request) => toResponse(errorAnswer(methodNotAllowed(request.method, allow)));
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}
