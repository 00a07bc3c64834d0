import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from '../support/serverProcess';
import { clientGet, takeAnswer, takeIdStrings, takeIds } from '../support/clientIds';

/**
 * The same HTTP contract through both lanes of the real server: the fast lane (node:http into lib/http) and
 * the plain Next route handlers (LEAF_FAST_LANE=off), which call the same handler.
 */
const lanes: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'fast lane', env: {} },
  { name: 'Next route handlers', env: { LEAF_FAST_LANE: 'off' } },
];

const cases: Array<{ method?: string; path: string; status: number; code?: string }> = [
  { path: '/api/id/segment/nope', status: 404, code: 'tag_not_found' },
  { path: '/api/id/segment/bad%20tag', status: 400, code: 'invalid_tag' },
  { path: '/api/id/segment/%E0%A4%A', status: 400, code: 'invalid_tag' },
  { path: `/api/id/segment/${'x'.repeat(129)}`, status: 400, code: 'invalid_tag' },
  { path: '/api/id/segment/demo?count=0', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/demo?count=10001', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/demo?count=-5', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/demo?count=2.5', status: 400, code: 'invalid_count' },
  { path: '/api/id/segment/demo?count=abc', status: 400, code: 'invalid_count' },
  { method: 'POST', path: '/api/id/segment/demo', status: 405, code: 'method_not_allowed' },
  { method: 'DELETE', path: '/api/segment/get/demo', status: 405, code: 'method_not_allowed' },
  { method: 'PUT', path: '/api/health', status: 405, code: 'method_not_allowed' },
  { path: '/api/id/snowflake?count=0', status: 400, code: 'invalid_count' },
  { path: '/api/id/snowflake/abc', status: 400, code: 'invalid_id' },
  { path: '/api/id/snowflake/-1', status: 400, code: 'invalid_id' },
  { path: '/api/id/snowflake/9223372036854775808', status: 400, code: 'invalid_id' },
  { path: '/api/id/snowflake/1.5', status: 400, code: 'invalid_id' },
  { path: '/api/snowflake/get/bad%20key', status: 400, code: 'invalid_tag' },
  { method: 'POST', path: '/api/id/snowflake', status: 405, code: 'method_not_allowed' },
];

for (const lane of lanes) {
  describe(`HTTP contract: ${lane.name}`, () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startServer(lane.env);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('serves single IDs, batches and the Leaf plain-text route from one engine', async () => {
      const one = await takeAnswer(`${server.url}/api/id/segment/demo`);
      expect(one.headers.get('cache-control')).toBe('no-store');
      expect(one.contentType).toMatch(/^application\/json/);
      expect(JSON.parse(one.text)).toEqual({ tag: 'demo', id: '2' });

      const batch = JSON.parse((await takeAnswer(`${server.url}/api/id/segment/demo?count=1000`)).text);
      expect(batch.tag).toBe('demo');
      expect(batch.ids).toHaveLength(1000);
      expect(batch.ids[0]).toBe('3');
      expect(batch.ids[999]).toBe('1002'); // spans the first segment (2..1001) into the second

      const plain = await takeAnswer(`${server.url}/api/segment/get/demo`);
      expect(plain.contentType).toMatch(/^text\/plain/);
      expect(plain.text).toBe('1003');
    });

    it.each(cases)('$method $path → $status $code', async ({ method = 'GET', path, status, code }) => {
      const r = await fetch(`${server.url}${path}`, { method });
      expect(r.status).toBe(status);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      const body = await r.json();
      expect(body.error.code).toBe(code);
      expect(typeof body.error.message).toBe('string');
      expect(JSON.stringify(body)).not.toMatch(/at \w+ \(|node_modules/); // no stack traces
      if (status === 405) expect(r.headers.get('allow')).toBe(path === '/api/health' ? 'GET, HEAD' : 'GET');
    });

    it('serves snowflake IDs as strings, decodes them, and the Leaf plain-text route', async () => {
      const [id] = await takeIdStrings(`${server.url}/api/id/snowflake`);
      expect(id).toMatch(/^[0-9]+$/);
      const ids = await takeIdStrings(`${server.url}/api/id/snowflake?count=500`);
      expect(ids).toHaveLength(500);
      expect(new Set(ids).size).toBe(500);
      expect(BigInt(ids[0]!)).toBeGreaterThan(BigInt(id!));
      const [plain] = await takeIds(`${server.url}/api/snowflake/get/anykey`);
      expect(plain).toBeGreaterThan(BigInt(ids[499]!));

      const decoded = await (await fetch(`${server.url}/api/id/snowflake/${id}`)).json();
      expect(decoded.id).toBe(id);
      expect(decoded.workerId).toBe(0);
      expect(Math.abs(Date.parse(decoded.timestamp) - Date.now())).toBeLessThan(60_000);
      expect(decoded.sequence).toBeGreaterThanOrEqual(0);
      const max = await (await fetch(`${server.url}/api/id/snowflake/9223372036854775807`)).json();
      expect(max).toMatchObject({ workerId: 1023, sequence: 4095 });
    });

    it('health answers JSON', async () => {
      const r = await fetch(`${server.url}/api/health`);
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ status: 'ok', store: { dialect: 'sqlite', reachable: true } });
    });

    it('concurrent requests never share an ID', async () => {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          takeIdStrings(`${server.url}/api/id/segment/demo${i % 2 ? '?count=7' : ''}`),
        ),
      );
      const ids = answers.flat();
      expect(ids).toHaveLength(100 + 700);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('opens exactly one runtime per process', () => {
      expect(server.logs().match(/"event":"runtime_ready"/g)).toHaveLength(1);
    });
  });
}

describe('LEAF_ID_TOKEN through the real server', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ LEAF_ID_TOKEN: 'id-token-for-contract' });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('ID routes need the Bearer token on both lanes of the process; health stays open', async () => {
    const denied = await fetch(`${server.url}/api/id/segment/demo`);
    expect(denied.status).toBe(401);
    expect((await denied.json()).error.code).toBe('unauthorized');
    const allowed = await takeIds(`${server.url}/api/id/segment/demo`, {
      headers: { authorization: 'Bearer id-token-for-contract' },
    });
    expect(allowed).toHaveLength(1);
    expect((await clientGet(`${server.url}/api/id/snowflake`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });
});
