/**
 * Clients on every ID path of the seams run (tools/chaos/seams), as users' would be: each sends one request at a
 * time, to a node of its region (any, at random) or to a package service of its region, retries a documented
 * retryable answer (a 503 with a retryable code, a refused or reset connection, an attempt past its bound) within
 * a bound, and records each answer with its send and receive times on the run's one clock.
 */
import http from 'node:http';
import type { Answer, IdPath } from './history';
import type { Fleet, Service } from './fleet';

/** The codes docs/api.md lists as retryable, and the packages' own for an unreachable fleet. */
const RETRYABLE = new Set([
  'store_unavailable',
  'segment_unavailable',
  'not_ready',
  'snowflake_unavailable',
  'closed',
  'owner_unavailable',
  'not_owner',
  'unavailable',
  'timeout',
  'network',
]);

export interface LoadOptions {
  fleet: Fleet;
  clientsPerRegion: number;
  random: () => number;
  /**
   * The region's segment tags to ask for now (a deleted one sometimes: its 404 is a refusal), the hot ones among them
   * (most requests go there), and its formatted tags.
   */
  tags(region: number): { segment: string[]; hot: string[]; formatted: string[] };
  answers: Answer[];
  done(): boolean;
  retryBoundMs: number;
  attemptMs: number;
}

export interface LoadStats {
  requests: number;
  retries: number;
  /** Final answers without IDs, by path and code (a refusal the API documents, a bound run out). */
  refused: Record<string, number>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Weighted: every path is asked for, the cheap ones more often. */
const PATHS: Array<[IdPath, number]> = [
  ['segment', 5],
  ['batch', 3],
  ['leaf', 2],
  ['range', 2],
  ['owner', 2],
  ['runs', 2],
  ['formatted', 2],
  ['snowflake', 2],
  ['client', 4],
  ['embedded', 3],
];

function pick<T>(random: () => number, items: readonly T[]): T | undefined {
  return items[Math.floor(random() * items.length)];
}

function pickPath(random: () => number): IdPath {
  const total = PATHS.reduce((n, [, w]) => n + w, 0);
  let x = random() * total;
  for (const [path, w] of PATHS) if ((x -= w) < 0) return path;
  return 'segment';
}

export async function runLoad(o: LoadOptions): Promise<LoadStats> {
  const stats: LoadStats = { requests: 0, retries: 0, refused: {} };
  const client = async (region: number): Promise<void> => {
    while (!o.done()) {
      const path = pickPath(o.random);
      // A package service this run could not start (an older checkout's) is not asked at all.
      if (o.fleet.regions[region]!.apps.some((a) => a.kind === path && a.unusable === true)) continue;
      const { segment, hot, formatted } = o.tags(region);
      // Most requests on the few tags whose ordering changes most (contention finds seams), the rest on any.
      const tags = hot.length > 0 && o.random() < 0.6 ? hot : segment;
      const tag = (path === 'formatted' ? pick(o.random, formatted) : pick(o.random, tags)) ?? '';
      await ask(o, stats, region, path, path === 'snowflake' ? '' : tag);
    }
  };
  await Promise.all(o.fleet.regions.flatMap((r) => Array.from({ length: o.clientsPerRegion }, () => client(r.index))));
  return stats;
}

function target(fleet: Fleet, region: number, path: IdPath, tag: string, random: () => number): string | null {
  const r = fleet.regions[region]!;
  const t = encodeURIComponent(tag);
  if (path === 'client' || path === 'embedded') {
    const app = r.apps.find((a) => a.kind === path) as Service;
    return app.down ? null : `${app.url}/take?tag=${t}&count=${random() < 0.5 ? 1 : 3}`;
  }
  const node = pick(
    random,
    r.nodes.filter((n) => !n.down),
  );
  if (node === undefined) return null;
  const route: Record<string, string> = {
    segment: `/api/id/segment/${t}`,
    batch: `/api/id/segment/${t}?count=4`,
    leaf: `/api/segment/get/${t}`,
    range: `/api/id/segment/${t}/range?count=5`,
    owner: `/api/id/owner/${t}`,
    runs: `/api/id/owner/${t}/runs?count=3`,
    formatted: `/api/id/formatted/${t}?count=2`,
    snowflake: `/api/id/snowflake?count=2`,
  };
  return `${node.url}${route[path]}`;
}

async function ask(o: LoadOptions, stats: LoadStats, region: number, path: IdPath, tag: string): Promise<void> {
  stats.requests++;
  const started = performance.now();
  let last = 'no target';
  for (let attempt = 0; performance.now() - started < o.retryBoundMs && !o.done(); attempt++) {
    const url = target(o.fleet, region, path, tag, o.random);
    if (url !== null) {
      const sentAt = performance.now();
      const got = await get(url, o.attemptMs);
      const receivedAt = performance.now();
      if (got.status === 200) {
        o.answers.push({
          region,
          path,
          tag,
          sentAt,
          receivedAt,
          ids: idsOf(path, got.body, got.plain),
          via: new URL(url).port,
        });
        return;
      }
      const code = got.status === 0 ? 'no-answer' : errorCode(got.body);
      last = `${got.status} ${code}`;
      if (got.status !== 0 && !(got.status === 503 && RETRYABLE.has(code))) break;
    }
    stats.retries++;
    await new Promise((r) => setTimeout(r, Math.min(200, 20 * 2 ** Math.min(attempt, 4))));
  }
  const key = `${path} ${last}`;
  stats.refused[key] = (stats.refused[key] ?? 0) + 1;
}

/** One attempt: status 0 when no answer came (refused, reset, past its bound: the request may have been served). */
function get(url: string, timeoutMs: number): Promise<{ status: number; body: string; plain: boolean }> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          plain: String(res.headers['content-type'] ?? '').startsWith('text/plain'),
        }),
      );
      res.on('error', () => resolve({ status: 0, body: '', plain: false }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: '', plain: false }));
  });
}

function errorCode(body: string): string {
  try {
    return String((JSON.parse(body) as { error?: { code?: unknown } }).error?.code ?? 'no-code');
  } catch {
    return 'not-json';
  }
}

/** The IDs of an answer as docs/api.md reads it: `id`, `ids`, plain text, or runs stepped by `stride`. */
export function idsOf(path: IdPath, body: string, plain: boolean): string[] {
  if (plain) return [body.trim()];
  const parsed = JSON.parse(body) as {
    id?: string;
    ids?: string[];
    stride?: number;
    ranges?: Array<{ start: string; end: string }>;
  };
  if (parsed.ranges !== undefined) {
    const stride = BigInt(parsed.stride ?? 1);
    const out: string[] = [];
    for (const { start, end } of parsed.ranges)
      for (let id = BigInt(start); id <= BigInt(end); id += stride) out.push(String(id));
    return out;
  }
  void path;
  return parsed.ids ?? (parsed.id === undefined ? [] : [parsed.id]);
}
