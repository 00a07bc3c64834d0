/** The one list of ID routes, matched without a URL object or a regex (the hot path). */
import { invalidTag, parseBizTag } from '../bizTag';

export type RouteKind =
  | 'segment'
  | 'segment-range'
  | 'segment-owner'
  | 'segment-owner-runs'
  | 'leaf-segment'
  | 'snowflake'
  | 'snowflake-decode'
  | 'snowflake-at'
  | 'leaf-snowflake'
  | 'health'
  | 'formatted'
  | 'ordering';

/** `param`: one path segment after the prefix (a tag, an ID, Leaf's key). The range route costs single IDs nothing. */
export const ID_ROUTES: ReadonlyArray<{ path: string; param: boolean; kind: RouteKind }> = [
  { path: '/api/id/segment/', param: true, kind: 'segment' },
  { path: '/api/id/owner/', param: true, kind: 'segment-owner' },
  { path: '/api/segment/get/', param: true, kind: 'leaf-segment' },
  { path: '/api/id/snowflake', param: false, kind: 'snowflake' },
  { path: '/api/id/snowflake/at', param: false, kind: 'snowflake-at' },
  { path: '/api/id/snowflake/', param: true, kind: 'snowflake-decode' },
  { path: '/api/snowflake/get/', param: true, kind: 'leaf-snowflake' },
  { path: '/api/health', param: false, kind: 'health' },
  { path: '/api/id/formatted/', param: true, kind: 'formatted' },
  { path: '/api/id/ordering', param: false, kind: 'ordering' },
];

/** Paths this handler owns; anything else below them is a JSON 404, anything outside is not ours (null). */
const OWNED_PREFIXES = ['/api/id/', '/api/id', '/api/segment/', '/api/segment', '/api/snowflake/', '/api/snowflake'];

export type Route = { kind: RouteKind; param: string } | { kind: 'unknown' };
export const UNKNOWN: Route = Object.freeze({ kind: 'unknown' });

export function matchRoute(path: string): Route | null {
  for (const r of ID_ROUTES) {
    if (r.param ? !path.startsWith(r.path) : path !== r.path) continue;
    if (!r.param) return { kind: r.kind, param: '' };
    const rest = segmentAfter(path, r.path);
    if (rest !== null) return { kind: r.kind, param: rest };
    const suffixed = SUFFIX_ROUTES.find((s) => s.under === r.kind);
    return suffixed === undefined ? UNKNOWN : suffixRoute(path, r.path, suffixed.suffix, suffixed.kind);
  }
  for (const prefix of OWNED_PREFIXES) {
    if (path === prefix || (prefix.endsWith('/') && path.startsWith(prefix))) return UNKNOWN;
  }
  return null;
}

/**
 * `{path}{tag}{suffix}` routes under a tag route: the range lease, and the owner's IDs as runs for a node relaying
 * a strict tag to it (lib/ordered/coalescer.ts).
 */
export const SUFFIX_ROUTES: ReadonlyArray<{ under: RouteKind; suffix: string; kind: RouteKind }> = [
  { under: 'segment', suffix: '/range', kind: 'segment-range' },
  { under: 'segment-owner', suffix: '/runs', kind: 'segment-owner-runs' },
];

/** `{prefix}{tag}{suffix}` as `kind` of that tag (a range lease, an owner's runs); anything else is unknown. */
function suffixRoute(path: string, prefix: string, suffix: string, kind: RouteKind): Route {
  const tag = path.endsWith(suffix) ? segmentAfter(path.slice(0, -suffix.length), prefix) : null;
  return tag === null ? UNKNOWN : { kind, param: tag };
}

/** The one path segment after `prefix`, or null when there is none or more than one. */
function segmentAfter(path: string, prefix: string): string | null {
  const rest = path.slice(prefix.length);
  return rest.length === 0 || rest.includes('/') ? null : rest;
}

/** A raw (still percent-encoded) path segment to a tag, decoded exactly once. */
export function decodeTag(raw: string): string {
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
