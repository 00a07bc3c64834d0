/**
 * The console API's one request pipeline: every route handler in app/api is thin and gets the same checks in the
 * same order — the runtime; a valid Bearer token (then the cookie is ignored, and no origin check applies); else the
 * origin of a write (lib/http/origin.ts); else the session cookie, live in the database; the caller's address; typed
 * errors → JSON statuses (lib/http/answer.ts). The ID routes have their own lane (idHandler.ts).
 */
import type { Requester } from '../admin/service';
import { SESSION_COOKIE, bearer, readCookie, secretEquals, sessionActor, tokenActor } from '../auth/credentials';
import { LeafError } from '../errors';
import { type Runtime, processLogger, runtimeOrNotReady } from '../runtime';
import { errorAnswer, failure, jsonOk, methodNotAllowed, toResponse } from './answer';
import { clientAddress } from './clientAddress';
import { foreignWrite } from './origin';

/** How the caller proved who it is: the admin token as Bearer, or a live console session. */
export type Credential = { kind: 'token'; actor: string } | { kind: 'session'; actor: string; sessionId: string };

/** Who is asking on any route: the credential, or null on a public route without one. */
export interface Caller {
  credential: Credential | null;
  actor: string | null;
  address: string;
}

type Handler<P> = (ctx: {
  request: Request;
  runtime: Runtime;
  params: P;
  who: Requester & Caller;
}) => Promise<Response>;
type PublicHandler<P> = (ctx: { request: Request; runtime: Runtime; params: P; who: Caller }) => Promise<Response>;
type NextRoute<P> = (request: Request, context: { params: Promise<P> }) => Promise<Response>;

/** The caller's own console session, when a session (not the Bearer token) signed the request. */
export function ownSessionId(who: Caller): string | null {
  return who.credential?.kind === 'session' ? who.credential.sessionId : null;
}

/** A JSON Response through the one answer builder. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return toResponse(jsonOk(body, status, headers));
}

/** A route that needs a credential (401 without one). */
export function route<P = Record<string, string>>(handler: Handler<P>): NextRoute<P>;
/** A route anyone may call (login, the session probe); `who.credential` says whether the caller has one. */
export function route<P = Record<string, string>>(handler: PublicHandler<P>, options: { public: true }): NextRoute<P>;
export function route<P = Record<string, string>>(
  handler: Handler<P> | PublicHandler<P>,
  options: { public?: boolean } = {},
): NextRoute<P> {
  return async (request, context) => {
    try {
      const runtime = await runtimeOrNotReady();
      const credential = await credentialOf(runtime, request);
      const actor = credential?.actor ?? null;
      const who: Caller = { credential, actor, address: clientAddress(request.headers) };
      const params = await context.params;
      if (options.public) return await (handler as PublicHandler<P>)({ request, runtime, params, who });
      if (actor === null) throw new LeafError('unauthorized', 'A valid admin token or session is required.');
      return await (handler as Handler<P>)({ request, runtime, params, who: { ...who, actor } });
    } catch (error) {
      return toResponse(
        failure(error, processLogger(), { method: request.method, path: new URL(request.url).pathname }),
      );
    }
  };
}

/**
 * A Bearer header is judged alone (a wrong one is not rescued by a cookie). Anything else — no header, Basic, an
 * empty one — leaves the cookie, and a write authenticated by the cookie (or by nothing) must come from the
 * console's own origin before the session is even looked up.
 */
async function credentialOf(runtime: Runtime, request: Request): Promise<Credential | null> {
  const { token } = runtime.console.admin;
  const presented = bearer(request.headers.get('authorization'));
  if (presented !== null) return secretEquals(presented, token) ? { kind: 'token', actor: tokenActor(token) } : null;
  const foreign = foreignWrite(request.method, request.headers);
  if (foreign !== null)
    throw new LeafError('forbidden_origin', `A console write must come from the console's own page (${foreign}).`);
  const cookie = readCookie(request.headers.get('cookie'), SESSION_COOKIE);
  if (cookie === null) return null;
  const sessionId = await runtime.console.sessions.verify(cookie, Date.now());
  return sessionId === null ? null : { kind: 'session', actor: sessionActor(sessionId), sessionId };
}

/** Handlers for the methods a route does not offer: 405 JSON with `Allow`. */
export function methodsNotAllowed(allow: string) {
  const handler = async (request: Request) => toResponse(errorAnswer(methodNotAllowed(request.method, allow)));
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}
