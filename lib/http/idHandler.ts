import { MAX_COUNT, isValidBizTag } from '../bizTag';
import { LeafError, isLeafError } from '../errors';
import { type Logger, silentLogger } from '../log';
import type { SegmentEngine } from '../segment/engine';
import type { SegmentStore } from '../store/types';

/**
 * The ID routes, framework-free. The custom server's fast lane and the Next route handlers both call this, so
 * the contract is written once. The hot path does no URL object, no regex and no JSON.stringify.
 */
export interface IdResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: string;
}

export interface IdRouteDeps {
  /** The engine and store, synchronously when up, else a promise (first request during start-up). */
  runtime(): { segments: SegmentEngine; store: SegmentStore } | Promise<{ segments: SegmentEngine; store: SegmentStore }>;
  logger?: Logger;
  /** Bound on the store ping of /api/health. */
  healthTimeoutMs?: number;
}

export type IdHandler = (method: string, url: string) => IdResponse | Promise<IdResponse> | null;

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
const TEXT_HEADERS = Object.freeze({ 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
const ALLOW_GET_HEADERS = Object.freeze({ ...JSON_HEADERS, allow: 'GET' });

const SEGMENT_PREFIX = '/api/id/segment/';
const LEAF_SEGMENT_PREFIX = '/api/segment/get/';
const HEALTH_PATH = '/api/health';
/** Paths this handler owns; anything else below them is a JSON 404, anything outside is not ours (null). */
const OWNED_PREFIXES = ['/api/id/', '/api/id', '/api/segment/', '/api/segment'];

type Route = { kind: 'segment'; rawTag: string } | { kind: 'leaf-segment'; rawTag: string } | { kind: 'health' } | { kind: 'unknown' };

export function createIdHandler(deps: IdRouteDeps): IdHandler {
  const logger = deps.logger ?? silentLogger;
  const healthTimeoutMs = deps.healthTimeoutMs ?? 1_000;

  function fail(error: unknown, method: string, path: string): IdResponse {
    if (isLeafError(error)) {
      return {
        status: error.status,
        headers: error.code === 'method_not_allowed' ? ALLOW_GET_HEADERS : JSON_HEADERS,
        body: errorBody(error.code, error.message),
      };
    }
    logger.log('error', 'unexpected_error', { method, path, error });
    return { status: 500, headers: JSON_HEADERS, body: errorBody('internal_error', 'Internal error.') };
  }

  return function handle(method, url) {
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const route = matchRoute(path);
    if (route === null) return null;
    try {
      if (method !== 'GET') throw new LeafError('method_not_allowed', `${method} is not allowed here; use GET.`);
      if (route.kind === 'unknown') throw new LeafError('route_not_found', 'No such route.');
      if (route.kind === 'health') return health(deps, healthTimeoutMs).catch((e) => fail(e, method, path));

      const bizTag = decodeTag(route.rawTag);
      const count = q === -1 ? 0 : parseCount(url, q + 1);
      const plain = route.kind === 'leaf-segment';
      if (plain && count !== 0) throw new LeafError('invalid_request', 'The Leaf-compatible route returns one ID; use /api/id/segment/{tag}?count=N for batches.');
      const rt = deps.runtime();
      if (rt instanceof Promise) {
        return rt.then((r) => issue(r.segments, bizTag, count, plain)).catch((e) => fail(e, method, path));
      }
      const result = issue(rt.segments, bizTag, count, plain);
      return result instanceof Promise ? result.catch((e) => fail(e, method, path)) : result;
    } catch (error) {
      return fail(error, method, path);
    }
  };
}

function matchRoute(path: string): Route | null {
  if (path.startsWith(SEGMENT_PREFIX)) return tagRoute('segment', path.slice(SEGMENT_PREFIX.length));
  if (path.startsWith(LEAF_SEGMENT_PREFIX)) return tagRoute('leaf-segment', path.slice(LEAF_SEGMENT_PREFIX.length));
  if (path === HEALTH_PATH) return { kind: 'health' };
  for (const prefix of OWNED_PREFIXES) {
    if (path === prefix || (prefix.endsWith('/') && path.startsWith(prefix))) return { kind: 'unknown' };
  }
  return null;
}

function tagRoute(kind: 'segment' | 'leaf-segment', rest: string): Route {
  if (rest.length === 0 || rest.includes('/')) return { kind: 'unknown' };
  return { kind, rawTag: rest };
}

function decodeTag(raw: string): string {
  let tag = raw;
  if (raw.includes('%')) {
    try {
      tag = decodeURIComponent(raw);
    } catch {
      throw invalidTag();
    }
  }
  if (!isValidBizTag(tag)) throw invalidTag();
  return tag;
}

function invalidTag(): LeafError {
  return new LeafError('invalid_tag', 'A tag is 1–128 characters of letters, digits, "_", "-", "." or ":".');
}

/** Reads `count` from the query string; 0 when absent. Rejects repeats, signs, decimals, and out-of-range values. */
function parseCount(url: string, from: number): number {
  let found: string | null = null;
  let start = from;
  while (start <= url.length) {
    let end = url.indexOf('&', start);
    if (end === -1) end = url.length;
    if (url.startsWith('count=', start) || (end - start === 5 && url.startsWith('count', start))) {
      if (found !== null) throw invalidCount();
      found = url.slice(start + 6, end);
    }
    start = end + 1;
  }
  if (found === null) return 0;
  if (found.length === 0 || found.length > 5) throw invalidCount();
  let n = 0;
  for (let i = 0; i < found.length; i++) {
    const c = found.charCodeAt(i) - 48;
    if (c < 0 || c > 9 || (i === 0 && c === 0)) throw invalidCount();
    n = n * 10 + c;
  }
  if (n > MAX_COUNT) throw invalidCount();
  return n;
}

function invalidCount(): LeafError {
  return new LeafError('invalid_count', `count must be a whole number from 1 to ${MAX_COUNT}.`);
}

function issue(engine: SegmentEngine, bizTag: string, count: number, plain: boolean): IdResponse | Promise<IdResponse> {
  if (count === 0) {
    const id = engine.nextId(bizTag);
    if (typeof id === 'number') return single(bizTag, id, plain);
    return id.then((v) => single(bizTag, v, plain));
  }
  const ids = engine.takeIds(bizTag, count);
  if (Array.isArray(ids)) return batch(bizTag, ids);
  return ids.then((v) => batch(bizTag, v));
}

// Tags are validated to a JSON-safe alphabet, so they are concatenated without escaping.
function single(bizTag: string, id: number, plain: boolean): IdResponse {
  if (plain) return { status: 200, headers: TEXT_HEADERS, body: String(id) };
  return { status: 200, headers: JSON_HEADERS, body: '{"tag":"' + bizTag + '","id":"' + id + '"}' };
}

function batch(bizTag: string, ids: number[]): IdResponse {
  let body = '{"tag":"' + bizTag + '","ids":["' + ids[0];
  for (let i = 1; i < ids.length; i++) body += '","' + ids[i];
  return { status: 200, headers: JSON_HEADERS, body: body + '"]}' };
}

function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

async function health(deps: IdRouteDeps, timeoutMs: number): Promise<IdResponse> {
  const { segments, store } = await deps.runtime();
  const started = performance.now();
  let reachable = true;
  let error: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      store.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (e) {
    reachable = false;
    error = isLeafError(e) ? e.message : (e as Error).message;
  } finally {
    clearTimeout(timer);
  }
  const engine = segments.status();
  // 200 while the store is down: the node still serves from its buffers. The body says it is degraded.
  const body = {
    status: reachable ? 'ok' : 'degraded',
    store: { dialect: store.dialect, reachable, latencyMs: Math.round((performance.now() - started) * 10) / 10, error },
    tags: { known: engine.tagsKnown, loaded: engine.tagsLoaded },
    lastRefreshAt: engine.lastRefreshAt === null ? null : new Date(engine.lastRefreshAt).toISOString(),
    lastRefreshError: engine.lastRefreshError,
  };
  return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(body) };
}
