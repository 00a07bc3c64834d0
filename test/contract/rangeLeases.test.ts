import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from '../support/serverProcess';
import { clientFetch } from '../support/clientIds';

/** GET /api/id/segment/{tag}/range through both lanes of the real server, behind LEAF_ID_TOKEN. */
const TOKEN = 'range-lease-contract-token';
const lanes: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'fast lane', env: { LEAF_ID_TOKEN: TOKEN } },
  { name: 'Next route handlers', env: { LEAF_ID_TOKEN: TOKEN, LEAF_FAST_LANE: 'off' } },
];

const badRequests: Array<{ path: string; status: number; code: string }> = [
  { path: '/api/id/segment/demo/range', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/demo/range?count=0', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/demo/range?count=10000001', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/demo/range?count=-5', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/demo/range?count=2.5', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/demo/range?count=abc', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/demo/range?count=1&count=2', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/bad%20tag/range?count=5', status: 400, code: 'invalid_tag' },
  { path: '/api/id/segment/nope/range?count=5', status: 404, code: 'tag_not_found' },
  { path: '/api/id/segment/demo/range/x?count=5', status: 404, code: 'route_not_found' },
];

interface Lease {
  tag: string;
  count: number;
  validMs?: number;
  ranges: Array<{ start: string; end: string }>;
}

for (const lane of lanes) {
  describe(`Range leases: ${lane.name}`, () => {
    let server: ServerProcess;
    const get = (path: string, token: string | null = TOKEN) =>
      clientFetch(`${server.url}${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });

    beforeAll(async () => {
      server = await startServer(lane.env);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('answers exactly count IDs as decimal-string runs, following the single route; 10,000,000 is one short answer', async () => {
      const single = await (await get('/api/id/segment/demo')).json();
      const r = await get('/api/id/segment/demo/range?count=500');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.headers.get('cache-control')).toBe('no-store');
      const lease = (await r.json()) as Lease;
      expect(lease).toEqual({
        tag: 'demo',
        count: 500,
        validMs: 300_000, // LEAF_RANGE_LEASE_VALID_MS's default: the holder hands the IDs out within it
        ranges: [{ start: String(Number(single.id) + 1), end: String(Number(single.id) + 500) }],
      });

      const big = await get('/api/id/segment/demo/range?count=10000000');
      const text = await big.text();
      expect(big.status).toBe(200);
      expect(text.length).toBeLessThan(200);
      const huge = JSON.parse(text) as Lease;
      expect(huge.count).toBe(10_000_000);
      expect(huge.ranges.reduce((n, x) => n + Number(x.end) - Number(x.start) + 1, 0)).toBe(10_000_000);
      expect(Number(huge.ranges[0]!.start)).toBeGreaterThan(Number(lease.ranges[0]!.end));
    });

    it.each(badRequests)('$path → $status $code', async ({ path, status, code }) => {
      const r = await get(path);
      expect(r.status).toBe(status);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      const body = await r.json();
      expect(body.error.code).toBe(code);
      expect(JSON.stringify(body)).not.toMatch(/at \w+ \(|node_modules/);
    });

    it('needs the ID token; POST is 405', async () => {
      const denied = await get('/api/id/segment/demo/range?count=5', null);
      expect(denied.status).toBe(401);
      expect((await denied.json()).error.code).toBe('unauthorized');
      expect((await get('/api/id/segment/demo/range?count=5', 'wrong')).status).toBe(401);
      const post = await fetch(`${server.url}/api/id/segment/demo/range?count=5`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET');
    });

    it('single, batch and range calls interleaved at once never overlap, each range exactly its count', async () => {
      const runs: Array<[number, number]> = [];
      let asked = 0;
      const calls = Array.from({ length: 240 }, async (_, i) => {
        if (i % 3 === 0) {
          const { id } = await (await get('/api/id/segment/demo')).json();
          runs.push([Number(id), Number(id)]);
          asked += 1;
        } else if (i % 3 === 1) {
          const { ids } = await (await get('/api/id/segment/demo?count=37')).json();
          for (const id of ids as string[]) runs.push([Number(id), Number(id)]);
          asked += 37;
        } else {
          const n = 1 + ((i * 7919) % 30_000);
          const lease = (await (await get(`/api/id/segment/demo/range?count=${n}`)).json()) as Lease;
          expect(lease.count).toBe(n);
          let total = 0;
          for (const { start, end } of lease.ranges) {
            runs.push([Number(start), Number(end)]);
            total += Number(end) - Number(start) + 1;
          }
          expect(total).toBe(n);
          asked += n;
        }
      });
      await Promise.all(calls);
      runs.sort((a, b) => a[0] - b[0]);
      let covered = 0;
      for (let i = 0; i < runs.length; i++) {
        if (i > 0) expect(runs[i]![0]).toBeGreaterThan(runs[i - 1]![1]);
        covered += runs[i]![1] - runs[i]![0] + 1;
      }
      expect(covered).toBe(asked);
    });
  });
}
