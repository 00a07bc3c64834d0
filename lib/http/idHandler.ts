import { ALL_ROUTES, type Grant, IdAccess, requireAllRoutes, requireGrant } from '../auth/scopedTokens';
import { type Clock, systemClock } from '../clock';
import { LeafError } from '../errors';
import { type Logger, silentLogger } from '../log';
import { type Answer, failure, methodNotAllowed, routeNotFound } from './answer';
import { countIn, leaseCountIn } from './count';
import { health, hostsProbeCache } from './health';
import {
  type IdRuntime,
  issueFormatted,
  issueOwned,
  issueOwnedRuns,
  issueSegment,
  issueSnowflake,
  leaseSegment,
} from './issue';
import { orderingAnswer, orderingQuery } from './clientOrdering';
import { formIn, inForm } from './idForm';
import { decodeTag, matchRoute } from './routes';
import { decodeSnowflake, snowflakeAt } from './snowflakeTime';

export type { IdRuntime } from './issue';
export { ID_ROUTES } from './routes';

/** The ID routes, framework-free, listed once: the fast lane and Next's catch-all both call this handler. */
export interface IdRouteDeps {
  /** The engines and store, synchronously when up, else a promise (first request during start-up). */
  runtime(): IdRuntime | Promise<IdRuntime>;
  logger?: Logger;
  /** Bound on the store ping of /api/health. */
  healthTimeoutMs?: number;
  /** How long the per-host health probe is reused after it finished (default 1000 ms; 0: no reuse). */
  hostsCacheMs?: number;
  /** Time source of the health probe's bound and of the host-probe cache. */
  clock?: Clock;
  /** When set (LEAF_ID_TOKEN), ID routes need `Authorization: Bearer <it>`; health stays open. Ignored with `access`. */
  idToken?: string | null;
  /** LEAF_ID_TOKEN and the access tokens; until the table is loaded, requests wait for the runtime. */
  access?: IdAccess;
}

/** An answer, or null when the path is not an ID route (the caller passes the request on). */
export type IdHandler = (method: string, url: string, authorization?: string | null) => Answer | Promise<Answer> | null;

const LEAF_ROUTE_COUNT_MESSAGE =
  'The Leaf-compatible routes return one ID; use ?count=N on /api/id/segment/{tag} or /api/id/snowflake.';

export function createIdHandler(deps: IdRouteDeps): IdHandler {
  const logger = deps.logger ?? silentLogger;
  const healthTimeoutMs = deps.healthTimeoutMs ?? 1_000;
  const access = deps.access ?? new IdAccess(deps.idToken ?? null, { loaded: true });
  const clock = deps.clock ?? systemClock;
  const probeHosts = hostsProbeCache(clock, deps.hostsCacheMs ?? 1_000);
  const fail = (error: unknown, method: string, path: string) => failure(error, logger, { method, path });

  /** The first requests of a starting node: answered once the runtime is up, and with it the token table. */
  const afterAccessLoads = (
    method: string,
    url: string,
    authorization: string | null | undefined,
    path: string,
  ): Promise<Answer> =>
    Promise.resolve(deps.runtime())
      .then(() => {
        if (!access.loaded) throw new LeafError('not_ready', 'The service is starting; try again shortly.');
        return handle(method, url, authorization) as Answer | Promise<Answer>;
      })
      .catch((e) => fail(e, method, path));

  return handle;

  function handle(method: string, url: string, authorization?: string | null): Answer | Promise<Answer> | null {
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const route = matchRoute(path);
    if (route === null) return null;
    try {
      // HEAD only for health (load balancers and uptime checkers send it): a HEAD on an ID route would spend IDs.
      if (route.kind === 'health') {
        if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, 'GET, HEAD');
        return Promise.resolve(deps.runtime())
          .then((rt) => health(rt, clock, healthTimeoutMs, probeHosts))
          .catch((e) => fail(e, method, path));
      }
      if (method !== 'GET') throw methodNotAllowed(method, 'GET');
      if (route.kind === 'unknown') throw routeNotFound();
      // Open (no token of any kind): one property read. Else 401 for a missing, unknown or revoked token first; a
      // scoped token on a tag it does not cover is a 403 once the tag is known.
      let grant: Grant = ALL_ROUTES;
      if (!access.open) {
        if (!access.loaded) return afterAccessLoads(method, url, authorization, path);
        grant = access.grant(authorization);
      }
      // The tag is checked before the count; the decode route ignores the query.
      let result: Answer | Promise<Answer>;
      switch (route.kind) {
        case 'segment': {
          const bizTag = allowedTag(grant, route.param);
          const count = countIn(url, q);
          const form = formIn(url, q); // refused before any ID is taken
          result = inForm(withRuntime(deps, issueSegment, bizTag, count, false, authorization), form);
          break;
        }
        case 'segment-owner': {
          const bizTag = allowedTag(grant, route.param);
          const count = countIn(url, q);
          const form = formIn(url, q);
          result = inForm(withRuntime(deps, issueOwned, bizTag, count, false, authorization), form);
          break;
        }
        case 'segment-owner-runs': {
          const bizTag = allowedTag(grant, route.param);
          result = withRuntime(deps, issueOwnedRuns, bizTag, Math.max(1, countIn(url, q)), false, authorization);
          break;
        }
        case 'segment-range': {
          const bizTag = allowedTag(grant, route.param);
          result = withRuntime(deps, leaseSegment, bizTag, leaseCountIn(url, q), false);
          break;
        }
        case 'leaf-segment': {
          const bizTag = allowedTag(grant, route.param);
          if (countIn(url, q) !== 0) throw new LeafError('invalid_request', LEAF_ROUTE_COUNT_MESSAGE);
          const form = formIn(url, q);
          result = inForm(withRuntime(deps, issueSegment, bizTag, 0, true, authorization), form);
          break;
        }
        case 'snowflake':
          requireAllRoutes(grant);
          result = withRuntime(deps, issueSnowflake, '', countIn(url, q), false);
          break;
        case 'leaf-snowflake':
          decodeTag(route.param);
          requireAllRoutes(grant);
          if (countIn(url, q) !== 0) throw new LeafError('invalid_request', LEAF_ROUTE_COUNT_MESSAGE);
          result = withRuntime(deps, issueSnowflake, '', 0, true);
          break;
        case 'snowflake-decode':
          requireAllRoutes(grant);
          result = decodeSnowflake(() => deps.runtime(), route.param);
          break;
        case 'snowflake-at':
          requireAllRoutes(grant);
          result = snowflakeAt(() => deps.runtime(), url, q);
          break;
        case 'formatted': {
          const bizTag = allowedTag(grant, route.param);
          result = withRuntime(deps, issueFormatted, bizTag, countIn(url, q), false);
          break;
        }
        case 'ordering': {
          const query = orderingQuery(url, q);
          const rt = deps.runtime();
          result =
            rt instanceof Promise
              ? rt.then((r) => orderingAnswer(r.ordered, query, grant))
              : orderingAnswer(rt.ordered, query, grant);
          break;
        }
      }
      return result instanceof Promise ? result.catch((e) => fail(e, method, path)) : result;
    } catch (error) {
      return fail(error, method, path);
    }
  }
}

/** The route's tag, decoded and validated, when the grant covers it (403 `forbidden_tag` otherwise). */
function allowedTag(grant: Grant, raw: string): string {
  const bizTag = decodeTag(raw);
  if (grant !== ALL_ROUTES) requireGrant(grant, bizTag);
  return bizTag;
}

type Issue = (
  rt: IdRuntime,
  bizTag: string,
  count: number,
  plain: boolean,
  authorization?: string | null,
) => Answer | Promise<Answer>;

/** Runs `issue` on the runtime: synchronously when it is up (the hot path allocates no promise). */
function withRuntime(
  deps: IdRouteDeps,
  issue: Issue,
  bizTag: string,
  count: number,
  plain: boolean,
  authorization?: string | null,
): Answer | Promise<Answer> {
  const rt = deps.runtime();
  return rt instanceof Promise
    ? rt.then((r) => issue(r, bizTag, count, plain, authorization))
    : issue(rt, bizTag, count, plain, authorization);
}
