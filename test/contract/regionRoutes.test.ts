import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from '../support/serverProcess';
import { takeAnswer } from '../support/clientIds';
import { decodeSnowflakeId, snowflakeAt } from '../../lib/client';

/**
 * Every public ID route of a regional fleet, read as docs/api.md says, answers IDs — never a region's raw positions.
 * Two regions (LEAF_REGIONS=2), one SQLite file each, the same tag in both, every route asked 30 times in each
 * region: no ID twice over the union, and every ID carries its region's remainder.
 */
const TOKEN = 'contract-admin-token-regions-01';
const TAG = 'orders';
let regions: ServerProcess[] = [];

beforeAll(async () => {
  regions = await Promise.all(
    [0, 1].map((region) =>
      startServer({
        LEAF_ADMIN_TOKEN: TOKEN,
        LEAF_REGIONS: '2',
        LEAF_REGION: String(region),
        LEAF_SNOWFLAKE_LAYOUT: 'leaf',
      }),
    ),
  );
  for (const r of regions) {
    expect((await r.api('/api/admin/tags', { method: 'POST', body: { bizTag: TAG, step: 20 } })).status).toBe(201);
    const format = {
      bizTag: 'ord-fmt',
      pattern: 'O-{yyyyMMdd}-{seq:6}',
      resetPeriod: 'daily',
      timeZone: 'UTC',
      step: 20,
    };
    expect((await r.api('/api/admin/formats', { method: 'POST', body: format })).status).toBe(201);
  }
}, 90_000);
afterAll(async () => {
  await Promise.all(regions.map((r) => r.stop()));
});

/** The IDs of an answer as docs/api.md reads it: `id`, `ids`, plain text, or a lease's runs stepped by `stride`. */
function idsOf(text: string, contentType: string): string[] {
  if (contentType.startsWith('text/plain')) return [text.trim()];
  const body = JSON.parse(text) as {
    id?: string;
    ids?: string[];
    stride?: number;
    ranges?: Array<{ start: string; end: string }>;
  };
  if (body.ranges !== undefined) {
    const stride = BigInt(body.stride ?? 1);
    const out: string[] = [];
    for (const { start, end } of body.ranges)
      for (let id = BigInt(start); id <= BigInt(end); id += stride) out.push(String(id));
    return out;
  }
  return body.ids ?? (body.id === undefined ? [] : [body.id]);
}

const ROUTES = [
  `/api/id/segment/${TAG}`,
  `/api/id/segment/${TAG}?count=3`,
  `/api/segment/get/${TAG}`,
  `/api/id/segment/${TAG}/range?count=4`,
  `/api/id/owner/${TAG}`,
  `/api/id/owner/${TAG}?count=3`,
  `/api/id/owner/${TAG}/runs?count=3`,
];

describe('a regional fleet answers IDs on every route', () => {
  it('segment, Leaf, range, owner and runs: none twice over both regions, each with its remainder', async () => {
    const seen = new Map<string, string>();
    const repeats: string[] = [];
    for (const [k, region] of regions.entries()) {
      for (const route of ROUTES) {
        for (let i = 0; i < 30; i++) {
          const answer = await takeAnswer(`${region.url}${route}`);
          for (const id of idsOf(answer.text, answer.contentType)) {
            expect(BigInt(id) % 2n, `${id} from region ${k} ${route}`).toBe(BigInt(k));
            const where = `region ${k} ${route}`;
            if (seen.has(id)) repeats.push(`${id}: ${seen.get(id)} and ${where}`);
            else seen.set(id, where);
          }
        }
      }
    }
    expect(repeats.slice(0, 5)).toEqual([]);
    expect(seen.size).toBeGreaterThan(2 * 30 * ROUTES.length);
  });

  it('formatted and snowflake IDs too', async () => {
    const seen = new Set<string>();
    for (const region of regions) {
      for (const route of ['/api/id/formatted/ord-fmt', '/api/id/formatted/ord-fmt?count=3', '/api/id/snowflake']) {
        for (let i = 0; i < 30; i++) {
          const answer = await takeAnswer(`${region.url}${route}`);
          for (const id of idsOf(answer.text, answer.contentType)) {
            expect(seen.has(id), id).toBe(false);
            seen.add(id);
          }
        }
      }
    }
  });

  it('snowflake IDs from a time: each region’s IDs issued between two moments lie between its at() bounds; the client computes the same', async () => {
    const atOf = async (region: ServerProcess, time: string) => {
      const r = await region.api(`/api/id/snowflake/at?time=${encodeURIComponent(time)}`, { auth: null });
      expect(r.status, time).toBe(200);
      return (await r.json()) as {
        layout: string;
        epoch: string;
        regions: number;
        region: number;
        firstAtOrAfter: string | null;
        lastBefore: string | null;
      };
    };
    const fleet = (a: { layout: string; epoch: string; regions: number }) => ({
      layout: a.layout,
      epoch: new Date(a.epoch),
      regions: a.regions,
    });
    for (const [index, region] of regions.entries()) {
      const from = new Date(Date.now() - 1).toISOString();
      const ids: bigint[] = [];
      for (let i = 0; i < 20; i++)
        ids.push(BigInt(JSON.parse((await takeAnswer(`${region.url}/api/id/snowflake`)).text).id));
      await new Promise((resolve) => setTimeout(resolve, 2));
      const to = String(Date.now()); // whole ms since 1970, the other form
      const [low, high] = [await atOf(region, from), await atOf(region, to)];
      expect([low.region, low.regions]).toEqual([index, 2]);
      for (const id of ids) {
        expect(id >= BigInt(low.firstAtOrAfter!), `${id} ≥ at(${from})`).toBe(true);
        expect(id <= BigInt(high.lastBefore!), `${id} ≤ before(${to})`).toBe(true);
        expect(decodeSnowflakeId({ ...fleet(low), region: index }, id).region).toBe(index);
      }
      // The decode route names the count too, so what it answers is enough to split an ID's bits as the node does.
      const decoded = await (await region.api(`/api/id/snowflake/${ids[0]}`, { auth: null })).json();
      expect(decoded).toMatchObject({ regions: 2, region: index });
      const named = { ...fleet(low), layout: decoded.layout, regions: decoded.regions, region: index };
      expect(decodeSnowflakeId(named, ids[0]!).timestamp.toISOString()).toBe(decoded.timestamp);
      // The client's pure function, given what the route names, answers the same IDs.
      const local = snowflakeAt({ ...fleet(low), region: index }, new Date(from));
      expect([String(local.firstAtOrAfter), String(local.lastBefore)]).toEqual([low.firstAtOrAfter, low.lastBefore]);
    }
    // Bad input: a 400 with a JSON error, never a 500.
    for (const query of ['', '?time=yesterday', '?time=2026-12-07T10:00:00', '?time=1&time=2', '?when=1']) {
      const r = await regions[0]!.api(`/api/id/snowflake/at${query}`, { auth: null });
      expect(r.status, query).toBe(400);
      expect((await r.json()).error.code).toBe('invalid_request');
    }
  });

  it('npm run regions -- check compares the two and finds them agreeing', () => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/regions.ts', 'check', ...regions.map((n) => n.url)],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/region 0 of 2/);
    expect(r.stdout).toMatch(/region 1 of 2/);
    expect(r.stdout).toMatch(/OK: the regions given agree/);
  });
});
