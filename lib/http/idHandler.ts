import { bearer, secretEquals } from '../auth/credentials';
import { MAX_COUNT, invalidTag, parseBizTag } from '../bizTag';
import { LeafError, isLeafError } from '../errors';
import { type Logger, silentLogger } from '../log';
import type { Runtime } from '../runtime';
import type { IdRanges, SegmentEngine } from '../segment/engine';
import { MAX_SNOWFLAKE, decompose } from '../snowflake/layout';
import type { SnowflakeNode } from '../snowflake/node';

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
  /** The engines and store, synchronously when up, else a promise (first request during start-up). */
  runtime(): IdRuntime | Promise<IdRuntime>;
  logger?: Logger;
  /** Bound on the store ping of /api/health. */
  healthTimeoutMs?: number;
  /** When set (LEAF_ID_TOKEN), ID routes need `Authorization: Bearer <it>`; health stays open. */
  idToken?: string | null;
}

/** The part of the runtime the ID routes use. */
export type IdRuntime = Pick<Runtime, 'segments' | 'store' | 'snowflake'>;

export type IdHandler = (method: string, url: string, authorization?: string | null) => IdResponse | Promise<IdResponse> | null;

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
const TEXT_HEADERS = Object.freeze({ 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
const ALLOW_GET_HEADERS = Object.freeze({ ...JSON_HEADERS, allow: 'GET' });

const SEGMENT_PREFIX = '/api/id/segment/';
const LEAF_SEGMENT_PREFIX = '/api/segment/get/';
const SNOWFLAKE_PATH = '/api/id/snowflake';
const SNOWFLAKE_DECODE_PREFIX = '/api/id/snowflake/';
const LEAF_SNOWFLAKE_PREFIX = '/api/snowflake/get/';
const HEALTH_PATH = '/api/health';
/** Paths this handler owns; anything else below them is a JSON 404, anything outside is not ours (null). */
const OWNED_PREFIXES = ['/api/id/', '/api/id', '/api/segment/', '/api/segment', '/api/snowflake/', '/api/snowflake'];

type Route =
  | { kind: 'segment' | 'leaf-segment'; rawTag: string }
  // Leaf's snowflake route takes a key it ignores; it is validated like a tag.
  | { kind: 'leaf-snowflake'; rawTag: string }
  | { kind: 'snowflake' }
  | { kind: 'snowflake-decode'; raw: string }
  | { kind: 'health' }
  | { kind: 'unknown' };

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

  const idToken = deps.idToken ?? null;

  return function handle(method, url, authorization) {
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const route = matchRoute(path);
    if (route === null) return null;
    try {
      if (method !== 'GET') throw new LeafError('method_not_allowed', `${method} is not allowed here; use GET.`);
      if (route.kind === 'unknown') throw new LeafError('route_not_found', 'No such route.');
      if (route.kind === 'health') return health(deps, healthTimeoutMs).catch((e) => fail(e, method, path));
      if (idToken !== null && !secretEquals(bearer(authorization) ?? '', idToken)) {
        throw new LeafError('unauthorized', 'This node requires an ID token (Authorization: Bearer …).');
      }
      if (route.kind === 'snowflake-decode') return decodeSnowflake(deps, route.raw).catch((e) => fail(e, method, path));
      const snowflake = route.kind === 'snowflake' || route.kind === 'leaf-snowflake';
      const bizTag = route.kind === 'snowflake' ? '' : decodeTag(route.rawTag);
      const count = q === -1 ? 0 : parseCount(url, q + 1);
      const plain = route.kind === 'leaf-segment' || route.kind === 'leaf-snowflake';
      if (plain && count !== 0) {
        throw new LeafError('invalid_request', 'The Leaf-compatible routes return one ID; use ?count=N on /api/id/segment/{tag} or /api/id/snowflake.');
      }
      const rt = deps.runtime();
      if (rt instanceof Promise) {
        return rt.then((r) => answer(r, snowflake, bizTag, count, plain)).catch((e) => fail(e, method, path));
      }
      const result = answer(rt, snowflake, bizTag, count, plain);
      return result instanceof Promise ? result.catch((e) => fail(e, method, path)) : result;
    } catch (error) {
      return fail(error, method, path);
    }
  };
}

const UNKNOWN: Route = Object.freeze({ kind: 'unknown' });

function matchRoute(path: string): Route | null {
  let rest: string | null;
  if (path.startsWith(SEGMENT_PREFIX)) return (rest = segmentAfter(path, SEGMENT_PREFIX)) === null ? UNKNOWN : { kind: 'segment', rawTag: rest };
  if (path.startsWith(LEAF_SEGMENT_PREFIX)) return (rest = segmentAfter(path, LEAF_SEGMENT_PREFIX)) === null ? UNKNOWN : { kind: 'leaf-segment', rawTag: rest };
  if (path === SNOWFLAKE_PATH) return { kind: 'snowflake' };
  if (path.startsWith(SNOWFLAKE_DECODE_PREFIX)) return (rest = segmentAfter(path, SNOWFLAKE_DECODE_PREFIX)) === null ? UNKNOWN : { kind: 'snowflake-decode', raw: rest };
  if (path.startsWith(LEAF_SNOWFLAKE_PREFIX)) return (rest = segmentAfter(path, LEAF_SNOWFLAKE_PREFIX)) === null ? UNKNOWN : { kind: 'leaf-snowflake', rawTag: rest };
  if (path === HEALTH_PATH) return { kind: 'health' };
  for (const prefix of OWNED_PREFIXES) {
    if (path === prefix || (prefix.endsWith('/') && path.startsWith(prefix))) return UNKNOWN;
  }
  return null;
}

/** The one path segment after `prefix`, or null when there is none or more than one. */
function segmentAfter(path: string, prefix: string): string | null {
  const rest = path.slice(prefix.length);
  return rest.length === 0 || rest.includes('/') ? null : rest;
}

/** A raw (still percent-encoded) path segment to a tag, decoded exactly once. */
function decodeTag(raw: string): string {
  let tag = raw;
  if (raw.includes('%')) {
    try {
      tag = decodeURIComponent(raw);
    } catch {
      throw invalidTag();
    }
  }
  return parseBizTag(tag);
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
  if (found.includes('%')) {
    // Percent-encoded digits mean the same number on both lanes (Next decodes the query before its handlers).
    try {
      found = decodeURIComponent(found);
    } catch {
      throw invalidCount();
    }
  }
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

function answer(rt: IdRuntime, snowflake: boolean, bizTag: string, count: number, plain: boolean): IdResponse | Promise<IdResponse> {
  return snowflake ? issueSnowflake(rt.snowflake, count, plain) : issue(rt.segments, bizTag, count, plain);
}

function issue(engine: SegmentEngine, bizTag: string, count: number, plain: boolean): IdResponse | Promise<IdResponse> {
  if (count === 0) {
    const id = engine.nextId(bizTag);
    if (typeof id === 'number') return single(bizTag, id, plain);
    return id.then((v) => single(bizTag, v, plain));
  }
  const ranges = engine.takeRanges(bizTag, count);
  if (ranges instanceof Promise) return ranges.then((r) => batch(bizTag, r));
  return batch(bizTag, ranges);
}

// Tags are validated to a JSON-safe alphabet, so they are concatenated without escaping.
function single(bizTag: string, id: number, plain: boolean): IdResponse {
  if (plain) return { status: 200, headers: TEXT_HEADERS, body: String(id) };
  return { status: 200, headers: JSON_HEADERS, body: '{"tag":"' + bizTag + '","id":"' + id + '"}' };
}

function batch(bizTag: string, { bounds }: IdRanges): IdResponse {
  // Straight from the ranges: no array of IDs is built for a batch.
  let body = '{"tag":"' + bizTag + '","ids":["' + bounds[0];
  for (let r = 0; r < bounds.length; r += 2) {
    const last = bounds[r + 1] as number;
    for (let id = r === 0 ? (bounds[0] as number) + 1 : (bounds[r] as number); id <= last; id++) body += '","' + id;
  }
  return { status: 200, headers: JSON_HEADERS, body: body + '"]}' };
}

function issueSnowflake(node: SnowflakeNode | null, count: number, plain: boolean): IdResponse | Promise<IdResponse> {
  if (node === null) throw new LeafError('snowflake_unavailable', 'Snowflake mode is off on this node (LEAF_SNOWFLAKE=off).');
  if (count === 0) {
    const id = node.nextId();
    if (typeof id === 'bigint') return snowflakeSingle(id, plain);
    return id.then((v) => snowflakeSingle(v, plain));
  }
  return node.take(count).then(snowflakeBatch);
}

function snowflakeSingle(id: bigint, plain: boolean): IdResponse {
  if (plain) return { status: 200, headers: TEXT_HEADERS, body: id.toString() };
  return { status: 200, headers: JSON_HEADERS, body: '{"id":"' + id + '"}' };
}

function snowflakeBatch(ids: bigint[]): IdResponse {
  let body = '{"ids":["' + ids[0];
  for (let i = 1; i < ids.length; i++) body += '","' + ids[i];
  return { status: 200, headers: JSON_HEADERS, body: body + '"]}' };
}

const DECIMAL_ID = /^[0-9]{1,19}$/;

async function decodeSnowflake(deps: IdRouteDeps, raw: string): Promise<IdResponse> {
  if (!DECIMAL_ID.test(raw) || BigInt(raw) > MAX_SNOWFLAKE) {
    throw new LeafError('invalid_id', 'A snowflake ID is a decimal integer from 0 to 9223372036854775807.');
  }
  const { snowflake } = await deps.runtime();
  if (snowflake === null) throw new LeafError('snowflake_unavailable', 'Snowflake mode is off on this node (LEAF_SNOWFLAKE=off).');
  const id = BigInt(raw);
  const d = decompose(id, snowflake.epochMs);
  const body = { id: id.toString(), timestamp: new Date(d.timestampMs).toISOString(), timestampMs: d.timestampMs, workerId: d.workerId, sequence: d.sequence };
  return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

async function health(deps: IdRouteDeps, timeoutMs: number): Promise<IdResponse> {
  const { segments, store, snowflake } = await deps.runtime();
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
    snowflake: snowflake === null ? { state: 'off' } : snowflake.status(),
  };
  return { status: 200, headers: JSON_HEADERS, body: JSON.stringify(body) };
}
