import type { Requester } from '@/lib/admin/service';
import { credentialOf } from '@/lib/auth/credentials';
import { LeafError } from '@/lib/errors';
import { failure, errorAnswer, jsonOk, methodNotAllowed, toResponse } from '@/lib/http/answer';
import { clientAddress } from '@/lib/http/clientAddress';
import { foreignWrite } from '@/lib/http/origin';
import { type Runtime, processLogger, runtimeOrNotReady } from '@/lib/runtime';

/** A JSON Response through the one answer builder. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return toResponse(jsonOk(body, status, headers));
}

/** Who is asking on any route: the credential's audit name, or null on a public route without one. */
type Caller = Omit<Requester, 'actor'> & { actor: string | null };

type Handler<P> = (ctx: { request: Request; runtime: Runtime; params: P; who: Requester }) => Promise<Response>;
type PublicHandler<P> = (ctx: { request: Request; runtime: Runtime; params: P; who: Caller }) => Promise<Response>;

/** Wraps a route: runtime, credential check (unless `public`), and typed errors → JSON statuses. */
export function route<P = Record<string, string>>(handler: Handler<P>): ReturnType<typeof withRequester<P>>;
export function route<P = Record<string, string>>(
  handler: PublicHandler<P>,
  options: { public: true },
): ReturnType<typeof withRequester<P>>;
export function route<P = Record<string, string>>(
  handler: Handler<P> | PublicHandler<P>,
  options: { public?: boolean } = {},
) {
  return withRequester<P>(async (ctx) => {
    if (options.public) return (handler as PublicHandler<P>)(ctx);
    const { actor } = ctx.who;
    if (actor === null) throw new LeafError('unauthorized', 'A valid admin token or session is required.');
    return (handler as Handler<P>)({ ...ctx, who: { ...ctx.who, actor } });
  });
}

/**
 * The runtime and who is asking, for any route; a write without a Bearer token from another origin refused first
 * (lib/http/origin.ts); typed errors → JSON statuses.
 */
function withRequester<P>(handler: PublicHandler<P>) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      const foreign = foreignWrite(request.method, request.headers);
      if (foreign !== null)
        throw new LeafError('forbidden_origin', `A console write must come from the console's own page (${foreign}).`);
      const runtime = await runtimeOrNotReady();
      const actor = credentialOf(
        runtime.console.admin.token,
        { authorization: request.headers.get('authorization'), cookie: request.headers.get('cookie') },
        Date.now(),
      );
      const who = { actor, address: clientAddress(request.headers) };
      return await handler({ request, runtime, params: await context.params, who });
    } catch (error) {
      return toResponse(
        failure(error, processLogger(), { method: request.method, path: new URL(request.url).pathname }),
      );
    }
  };
}

/** Handlers for the methods a route does not offer: 405 JSON with `Allow`. */
export function methodsNotAllowed(allow: string) {
  const handler = async (request: Request) => toResponse(errorAnswer(methodNotAllowed(request.method, allow)));
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}
