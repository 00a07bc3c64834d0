import { hostProblems } from '../admin/hostHealth';
import type { HealthView } from '../admin/views';
import { ALL_ROUTES, type Grant, IdAccess, requireAllRoutes, requireTag } from '../auth/scopedTokens';
import { MAX_COUNT, MAX_LEASE_COUNT, formatLimit, invalidTag, parseBizTag } from '../bizTag';
import { type Clock, systemClock } from '../clock';
import { LeafError, isLeafError } from '../errors';
import { type Logger, silentLogger } from '../log';
import type { Runtime } from '../runtime';
import { type IdRanges, runBase } from '../segment/idRanges';
import { type Id, idAt } from '../segment/id';
import { MAX_SNOWFLAKE, decompose } from '../snowflake/layout';
import { formatNotFound } from '../format/rules';
import type { HostHealth } from '../store/leafStore';
import type { LeafStore } from '../store/leafStore';
import { type Answer, failure, jsonOk, jsonText, methodNotAllowed, plainText, routeNotFound } from './answer';

/**
 * The ID routes, framework-free, and the one list of them: the custom server's fast lane calls this handler
 * first, and Next's catch-all route (`app/api/[...rest]`) calls it for whatever no page or admin route owns, so
 * the contract is written once. The hot path does no URL object, no regex and no JSON.stringify.
 */
export interface IdRouteDeps {
  /** The engines and store, synchronously when up, else a promise (first request during start-up). */
  runtime(): IdRuntime | Promise<IdRuntime>;
  logger?: Logger;
  /** Bound on the store ping of /api/health. */
  healthTimeoutMs?: number;
  /**
   * How long the per-host probe of /api/health (one fresh connection per database host) is reused, counted from
   * when it finished; concurrent health calls share one probe in flight. Default 1000 ms; 0: no reuse once it has finished.
   */
  hostsCacheMs?: number;
  /** Time source of the host-probe cache. */
  clock?: Clock;
  /** When set (LEAF_ID_TOKEN), ID routes need `Authorization: Bearer <it>`; health stays open. Ignored with `access`. */
  idToken?: string | null;
  /**
   * Who may use the ID routes: LEAF_ID_TOKEN and the per-tag access tokens (lib/auth/scopedTokens.ts). Default: a
   * table of `idToken` alone, loaded. Until it is loaded, requests wait for the runtime (which loads it).
   */
  access?: IdAccess;
}

/** The part of the runtime the ID routes use (`formats` absent: no formatted tag exists). */
export type IdRuntime = Pick<Runtime, 'segments' | 'store' | 'snowflake'> & Partial<Pick<Runtime, 'formats'>>;

/** An answer, or null when the path is not an ID route (the caller passes the request on). */
export type IdHandler = (method: string, url: string, authorization?: string | null) => Answer | Promise<Answer> | null;

type RouteKind = 'segment' | 'segment-range' | 'leaf-segment' | 'snowflake' | 'snowflake-decode' | 'leaf-snowflake' | 'health' | 'formatted';

/**
 * Every ID route. `param`: the path ends in one segment after the prefix (a tag, an ID, or Leaf's snowflake key,
 * which is validated like a tag and otherwise ignored); else the path is exactly the prefix. The range lease,
 * `/api/id/segment/{tag}/range`, is matched only once a path under the segment prefix is not a single tag, so the
 * single-ID route pays nothing for it (RANGE_SUFFIX). The formatted route comes last, so no older route pays for it.
 */
export const ID_ROUTES: ReadonlyArray<{ path: string; param: boolean; kind: RouteKind }> = [
  { path: '/api/id/segment/', param: true, kind: 'segment' },
  { path: '/api/segment/get/', param: true, kind: 'leaf-segment' },
  { path: '/api/id/snowflake', param: false, kind: 'snowflake' },
  { path: '/api/id/snowflake/', param: true, kind: 'snowflake-decode' },
  { path: '/api/snowflake/get/', param: true, kind: 'leaf-snowflake' },
  { path: '/api/health', param: false, kind: 'health' },
  { path: '/api/id/formatted/', param: true, kind: 'formatted' },
];

/** Paths this handler owns; anything else below them is a JSON 404, anything outside is not ours (null). */
const OWNED_PREFIXES = ['/api/id/', '/api/id', '/api/segment/', '/api/segment', '/api/snowflake/', '/api/snowflake'];

type Route = { kind: RouteKind; param: string } | { kind: 'unknown' };
const UNKNOWN: Route = Object.freeze({ kind: 'unknown' });

const LEAF_ROUTE_COUNT_MESSAGE =
  'The Leaf-compatible routes return one ID; use ?count=N on /api/id/segment/{tag} or /api/id/snowflake.';

export function createIdHandler(deps: IdRouteDeps): IdHandler {
  const logger = deps.logger ?? silentLogger;
  const healthTimeoutMs = deps.healthTimeoutMs ?? 1_000;
  const access = deps.access ?? new IdAccess(deps.idToken ?? null, { loaded: true });
  const probeHosts = hostsProbeCache(deps.clock ?? systemClock, deps.hostsCacheMs ?? 1_000);
  const fail = (error: unknown, method: string, path: string) => failure(error, logger, { method, path });

  /** The first requests of a starting node: answered once the runtime is up, and with it the token table. */
  const afterAccessLoads = (method: string, url: string, authorization: string | null | undefined, path: string): Promise<Answer> =>
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
      if (method !== 'GET') throw methodNotAllowed(method, 'GET');
      if (route.kind === 'unknown') throw routeNotFound();
      if (route.kind === 'health') return health(deps, healthTimeoutMs, probeHosts).catch((e) => fail(e, method, path));
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
          result = withRuntime(deps, issueSegment, bizTag, countIn(url, q), false);
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
          result = withRuntime(deps, issueSegment, bizTag, 0, true);
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
          result = decodeSnowflake(deps, route.param);
          break;
        case 'formatted': {
          const bizTag = allowedTag(grant, route.param);
          result = withRuntime(deps, issueFormatted, bizTag, countIn(url, q), false);
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
  if (grant !== ALL_ROUTES) requireTag(grant, bizTag);
  return bizTag;
}

type Issue = (rt: IdRuntime, bizTag: string, count: number, plain: boolean) => Answer | Promise<Answer>;

/** Runs `issue` on the runtime: synchronously when it is up (the hot path allocates no promise). */
function withRuntime(deps: IdRouteDeps, issue: Issue, bizTag: string, count: number, plain: boolean): Answer | Promise<Answer> {
  const rt = deps.runtime();
  return rt instanceof Promise ? rt.then((r) => issue(r, bizTag, count, plain)) : issue(rt, bizTag, count, plain);
}

function matchRoute(path: string): Route | null {
  for (const r of ID_ROUTES) {
    if (r.param ? !path.startsWith(r.path) : path !== r.path) continue;
    if (!r.param) return { kind: r.kind, param: '' };
    const rest = segmentAfter(path, r.path);
    if (rest !== null) return { kind: r.kind, param: rest };
    return r.kind === 'segment' ? rangeRoute(path, r.path) : UNKNOWN;
  }
  for (const prefix of OWNED_PREFIXES) {
    if (path === prefix || (prefix.endsWith('/') && path.startsWith(prefix))) return UNKNOWN;
  }
  return null;
}

const RANGE_SUFFIX = '/range';

/** `{prefix}{tag}/range` as the range lease of that tag; anything else under the prefix is unknown. */
function rangeRoute(path: string, prefix: string): Route {
  const tag = path.endsWith(RANGE_SUFFIX) ? segmentAfter(path.slice(0, -RANGE_SUFFIX.length), prefix) : null;
  return tag === null ? UNKNOWN : { kind: 'segment-range', param: tag };
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

/** `count` of the query string that starts after `q` (-1: no query); 0 when absent. */
function countIn(url: string, q: number): number {
  return q === -1 ? 0 : parseCount(url, q + 1, MAX_COUNT);
}

/** A range lease's `count`: required, 1 to MAX_LEASE_COUNT. */
function leaseCountIn(url: string, q: number): number {
  const n = q === -1 ? 0 : parseCount(url, q + 1, MAX_LEASE_COUNT);
  if (n === 0) throw invalidCount(MAX_LEASE_COUNT);
  return n;
}

/** No count any route accepts is longer; a longer one is refused before it is read. */
const MAX_COUNT_DIGITS = String(MAX_LEASE_COUNT).length;

/**
 * Reads `count` from the query string; 0 when absent. Rejects repeats, signs, decimals, and values above `max`.
 */
function parseCount(url: string, from: number, max: number): number {
  let found: string | null = null;
  let start = from;
  while (start <= url.length) {
    let end = url.indexOf('&', start);
    if (end === -1) end = url.length;
    if (url.startsWith('count=', start) || (end - start === 5 && url.startsWith('count', start))) {
      if (found !== null) throw invalidCount(max);
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
      throw invalidCount(max);
    }
  }
  if (found.length === 0 || found.length > MAX_COUNT_DIGITS) throw invalidCount(max);
  let n = 0;
  for (let i = 0; i < found.length; i++) {
    const c = found.charCodeAt(i) - 48;
    if (c < 0 || c > 9 || (i === 0 && c === 0)) throw invalidCount(max);
    n = n * 10 + c;
  }
  if (n > max) throw invalidCount(max);
  return n;
}

function invalidCount(max: number): LeafError {
  // The batch's message stays as it always was; the lease's larger limit reads with separators.
  const limit = max === MAX_COUNT ? String(MAX_COUNT) : formatLimit(max);
  return new LeafError('invalid_count', `count must be a whole number from 1 to ${limit}.`);
}

function issueSegment({ segments: engine }: IdRuntime, bizTag: string, count: number, plain: boolean): Answer | Promise<Answer> {
  if (count === 0) {
    const id = engine.nextId(bizTag);
    if (typeof id !== 'object') return single(bizTag, id, plain);
    return id.then((v) => single(bizTag, v, plain));
  }
  const ranges = engine.takeRanges(bizTag, count);
  if (ranges instanceof Promise) return ranges.then((r) => batch(bizTag, r));
  return batch(bizTag, ranges);
}

function leaseSegment({ segments: engine }: IdRuntime, bizTag: string, count: number): Answer | Promise<Answer> {
  const ranges = engine.leaseRanges(bizTag, count);
  if (ranges instanceof Promise) return ranges.then((r) => lease(bizTag, r));
  return lease(bizTag, ranges);
}

// Tags are validated to a JSON-safe alphabet, so they are concatenated without escaping. An ID is a number, or a
// bigint above 2^53−1: string concatenation writes either in decimal.
function single(bizTag: string, id: Id, plain: boolean): Answer {
  if (plain) return plainText(String(id));
  return jsonText('{"tag":"' + bizTag + '","id":"' + id + '"}');
}

function batch(bizTag: string, ranges: IdRanges): Answer {
  // Straight from the ranges: no array of IDs is built for a batch.
  const bounds = ranges.bounds;
  let body = '{"tag":"' + bizTag + '","ids":[';
  for (let r = 0; r < bounds.length; r += 2) {
    const base = runBase(ranges, r);
    const first = bounds[r] as number;
    const last = bounds[r + 1] as number;
    if (base !== null) {
      body = longRun(body, r === 0, base + BigInt(first), last - first + 1);
      continue;
    }
    if (first >= LOW_DIGITS) {
      // Past 10^9 a number is a heap double in V8, slow to print: written as a wide run is (one BigInt per run).
      body = longRun(body, r === 0, BigInt(first), last - first + 1);
      continue;
    }
    body += (r === 0 ? '"' : ',"') + first;
    for (let id = first + 1; id <= last; id++) body += '","' + id;
    body += '"';
  }
  return jsonText(body + ']}');
}

/**
 * An ID of 10 digits or more is written as a decimal prefix and its low 9 digits, a small integer (a V8 Smi: cheap
 * to print). Measured in-process on batches of 1,000: IDs near 10^15 printed as numbers ran at ~5.9k batches/s,
 * IDs near 10^17 printed this way at ~16k.
 */
const LOW_DIGITS = 1_000_000_000;
const LOW_DIGITS_BIG = 1_000_000_000n;

/**
 * `count` consecutive IDs from `first` (at least 10^9, so every ID has more than 9 digits and a prefix) appended as
 * JSON strings: the decimal prefix once per 10^9 IDs, the low 9 digits counted as a number — zero-padded only when
 * below 10^8 — so no bigint and no double is printed per ID.
 */
function longRun(body: string, isFirst: boolean, first: bigint, count: number): string {
  let high = first / LOW_DIGITS_BIG;
  let low = Number(first % LOW_DIGITS_BIG);
  body += (isFirst ? '"' : ',"') + high + lowDigits(low);
  // Each later ID is `","` + prefix + its low digits: the separator and the prefix joined once per prefix.
  let lead = '","' + high;
  for (let i = 1; i < count; i++) {
    if (++low === LOW_DIGITS) {
      low = 0;
      lead = '","' + ++high;
    }
    body += lead + lowDigits(low);
  }
  return body + '"';
}

/** The low 9 digits of a wide ID: the number itself, or zero-padded when below 10^8. */
function lowDigits(low: number): number | string {
  return low >= LOW_DIGITS / 10 ? low : String(LOW_DIGITS + low).slice(1);
}

/** A lease: one `{start,end}` per run, so its size does not grow with the count. */
function lease(bizTag: string, ranges: IdRanges): Answer {
  const { bounds, count } = ranges;
  let body = '{"tag":"' + bizTag + '","count":' + count + ',"ranges":[';
  for (let r = 0; r < bounds.length; r += 2) {
    const base = runBase(ranges, r);
    body += (r === 0 ? '{"start":"' : ',{"start":"') + idAt(base, bounds[r] as number) + '","end":"' + idAt(base, bounds[r + 1] as number) + '"}';
  }
  return jsonText(body + ']}');
}

function issueFormatted({ formats }: IdRuntime, bizTag: string, count: number): Answer | Promise<Answer> {
  if (formats === undefined) throw formatNotFound(bizTag);
  if (count === 0) {
    const id = formats.nextId(bizTag);
    return typeof id === 'string' ? formattedSingle(bizTag, id) : id.then((v) => formattedSingle(bizTag, v));
  }
  const ids = formats.takeIds(bizTag, count);
  return ids instanceof Promise ? ids.then((v) => formattedBatch(bizTag, v)) : formattedBatch(bizTag, ids);
}

// A formatted ID holds the pattern's literal text, which may need JSON escaping (quotes, backslashes, non-ASCII).
function formattedSingle(bizTag: string, id: string): Answer {
  return jsonText('{"tag":"' + bizTag + '","id":' + JSON.stringify(id) + '}');
}

/** Whether JSON must escape a character of `text` inside a string: a quote, a backslash or a control character. */
function needsEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return true;
  }
  return false;
}

function formattedBatch(bizTag: string, ids: string[]): Answer {
  // The IDs of one batch come from one period's renderer: they share every character but the date and sequence
  // digits, so when the first needs no escaping none does, and the body is joined directly (JSON.stringify of the
  // array cost ~2.5× the whole rendering).
  if (ids.length === 0 || needsEscape(ids[0]!)) return jsonText('{"tag":"' + bizTag + '","ids":' + JSON.stringify(ids) + '}');
  let body = '{"tag":"' + bizTag + '","ids":["' + ids[0];
  for (let k = 1; k < ids.length; k++) body += '","' + ids[k];
  return jsonText(body + '"]}');
}

function snowflakeOff(): LeafError {
  return new LeafError('snowflake_unavailable', 'Snowflake mode is off on this node (LEAF_SNOWFLAKE=off).');
}

function issueSnowflake({ snowflake: node }: IdRuntime, _bizTag: string, count: number, plain: boolean): Answer | Promise<Answer> {
  if (node === null) throw snowflakeOff();
  if (count === 0) {
    const id = node.nextId();
    if (typeof id === 'bigint') return snowflakeSingle(id, plain);
    return id.then((v) => snowflakeSingle(v, plain));
  }
  return node.take(count).then(snowflakeBatch);
}

function snowflakeSingle(id: bigint, plain: boolean): Answer {
  if (plain) return plainText(id.toString());
  return jsonText('{"id":"' + id + '"}');
}

function snowflakeBatch(ids: bigint[]): Answer {
  let body = '{"ids":["' + ids[0];
  for (let i = 1; i < ids.length; i++) body += '","' + ids[i];
  return jsonText(body + '"]}');
}

const DECIMAL_ID = /^[0-9]{1,19}$/;

async function decodeSnowflake(deps: IdRouteDeps, raw: string): Promise<Answer> {
  if (!DECIMAL_ID.test(raw) || BigInt(raw) > MAX_SNOWFLAKE) {
    throw new LeafError('invalid_id', 'A snowflake ID is a decimal integer from 0 to 9223372036854775807.');
  }
  const { snowflake } = await deps.runtime();
  if (snowflake === null) throw snowflakeOff();
  const id = BigInt(raw);
  const d = decompose(id, snowflake.epochMs);
  const body = { id: id.toString(), timestamp: new Date(d.timestampMs).toISOString(), timestampMs: d.timestampMs, workerId: d.workerId, sequence: d.sequence };
  return jsonOk(body);
}

type HostsProbe = (store: Pick<LeafStore, 'hosts'>, timeoutMs: number) => Promise<HostHealth[] | undefined> | undefined;

/**
 * The per-host probe of /api/health, bounded in cost: a load balancer polling health must not open one connection
 * per host per poll. One probe at a time (callers during it share it), and its result is reused for `ttlMs` after
 * it settles. A probe that throws counts as a settled "no hosts list" for as long. Keyed by store, so a new runtime
 * is probed afresh. Undefined for a store without hosts (SQLite).
 */
function hostsProbeCache(clock: Clock, ttlMs: number): HostsProbe {
  let store: Pick<LeafStore, 'hosts'> | null = null;
  let pending: Promise<HostHealth[] | undefined> | null = null;
  let settledAt = -Infinity;
  return (s, timeoutMs) => {
    if (s.hosts === undefined) return undefined;
    if (s !== store) {
      store = s;
      pending = null;
    }
    if (pending !== null && (settledAt === -Infinity || clock.now() - settledAt < ttlMs)) return pending;
    settledAt = -Infinity;
    const probe: Promise<HostHealth[] | undefined> = s.hosts(timeoutMs).catch(() => undefined);
    pending = probe;
    void probe.then(() => {
      if (pending === probe) settledAt = clock.now();
    });
    return probe;
  };
}

async function health(deps: IdRouteDeps, timeoutMs: number, probeHosts: HostsProbe): Promise<Answer> {
  const { segments, store, snowflake } = await deps.runtime();
  // Every host on its own, in parallel with the ping; each probe is bounded by the same timeout, and its result
  // is shared by the health calls of the next second.
  const hostsProbe = probeHosts(store, timeoutMs);
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
  const latencyMs = Math.round((performance.now() - started) * 10) / 10;
  const hosts = await hostsProbe;
  // A host down, or a Galera node not Synced, outside the primary component or not accepting queries: the node still
  // serves (through the others), but an operator should look.
  const hostsOk = hosts?.every((h) => hostProblems(h).length === 0) ?? true;
  const engine = segments.status();
  // 200 while the store is down: the node still serves from its buffers. The body says it is degraded.
  const body: HealthView = {
    status: reachable && hostsOk ? 'ok' : 'degraded',
    store: { dialect: store.dialect, reachable, latencyMs, error, ...(hosts === undefined ? {} : { hosts }) },
    tags: { known: engine.tagsKnown, loaded: engine.tagsLoaded },
    lastRefreshAt: engine.lastRefreshAt === null ? null : new Date(engine.lastRefreshAt).toISOString(),
    lastRefreshError: engine.lastRefreshError,
    snowflake: snowflake === null ? { state: 'off' } : snowflake.status(),
  };
  return jsonOk(body);
}
