import { describe, expect, it } from 'vitest';
import type { Answer } from '@/lib/http/answer';
import { createIdHandler } from '@/lib/http/idHandler';
import { SegmentEngine } from '@/lib/segment/engine';
import type { HostHealth } from '@/lib/store/leafStore';
import type { LeafStore } from '@/lib/store/leafStore';
import { FakeClock, FakeStore } from '../support/fakes';

async function setup() {
  const store = new FakeStore([
    { bizTag: 'order', step: 100 },
    { bizTag: 'a.b:c-d_9', step: 10 },
  ]);
  const segments = new SegmentEngine({ store, refreshIntervalMs: 0, loadWaitMs: 50 });
  await segments.start();
  const handle = createIdHandler({
    runtime: () => ({ segments, store: store as unknown as LeafStore, snowflake: null }),
  });
  const call = async (url: string, method = 'GET'): Promise<Answer> => {
    const r = handle(method, url);
    if (r === null) throw new Error(`not routed: ${url}`);
    return r;
  };
  return { store, segments, handle, call };
}

function errorCode(r: Answer): string {
  return JSON.parse(r.body).error.code;
}

describe('ID handler', () => {
  it('single ID as a decimal string', async () => {
    const { call } = await setup();
    const r = await call('/api/id/segment/order');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ tag: 'order', id: '2' });
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['content-type']).toMatch(/^application\/json/);
  });

  it('batch with count', async () => {
    const { call } = await setup();
    const r = await call('/api/id/segment/order?count=5');
    expect(JSON.parse(r.body)).toEqual({ tag: 'order', ids: ['2', '3', '4', '5', '6'] });
    const one = await call('/api/id/segment/order?foo=1&count=1&bar');
    expect(JSON.parse(one.body)).toEqual({ tag: 'order', ids: ['7'] });
    const encoded = await call('/api/id/segment/order?count=%32');
    expect(JSON.parse(encoded.body)).toEqual({ tag: 'order', ids: ['8', '9'] });
  });

  it('count=10000 is allowed and spans segments', async () => {
    const { call } = await setup();
    const body = JSON.parse((await call('/api/id/segment/order?count=10000')).body);
    expect(body.ids).toHaveLength(10000);
    expect(new Set(body.ids).size).toBe(10000);
    expect(body.ids[0]).toBe('2');
    expect(body.ids[9999]).toBe('10001');
  });

  it('a batch across segments with a gap (another node claimed in between) lists exactly the claimed IDs', async () => {
    const { call, store } = await setup();
    await call('/api/id/segment/order?count=95'); // 2..96 of segment 2..101; the next segment loads in the background
    await new Promise((r) => setImmediate(r));
    await store.allocate('order', 1000); // another node takes 302..1301
    const body = JSON.parse((await call('/api/id/segment/order?count=215')).body);
    const expected = [
      ...Array.from({ length: 5 }, (_, i) => String(97 + i)), // rest of 2..101
      ...Array.from({ length: 200 }, (_, i) => String(102 + i)), // the preloaded 102..301
      ...Array.from({ length: 10 }, (_, i) => String(1302 + i)), // above the other node's segment
    ];
    expect(body.ids).toEqual(expected);
  });

  it('Leaf-compatible route answers the ID as plain text', async () => {
    const { call } = await setup();
    const r = await call('/api/segment/get/order');
    expect(r.status).toBe(200);
    expect(r.body).toBe('2');
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('accepts every tag character and percent-encoded tags', async () => {
    const { call } = await setup();
    expect(JSON.parse((await call('/api/id/segment/a.b:c-d_9')).body).id).toBe('2');
    expect(JSON.parse((await call('/api/id/segment/a.b%3Ac-d_9')).body).id).toBe('3');
  });

  it.each([
    ['/api/id/segment/order?count=0', 'invalid_count'],
    ['/api/id/segment/order?count=10001', 'invalid_count'],
    ['/api/id/segment/order?count=-1', 'invalid_count'],
    ['/api/id/segment/order?count=1.5', 'invalid_count'],
    ['/api/id/segment/order?count=1e3', 'invalid_count'],
    ['/api/id/segment/order?count=', 'invalid_count'],
    ['/api/id/segment/order?count', 'invalid_count'],
    ['/api/id/segment/order?count=01', 'invalid_count'],
    ['/api/id/segment/order?count=99999999999999999999', 'invalid_count'],
    ['/api/id/segment/order?count=1&count=2', 'invalid_count'],
    ['/api/id/segment/order?count=%3', 'invalid_count'],
    ['/api/id/segment/order?count=%2D1', 'invalid_count'],
    ['/api/id/segment/or%20der', 'invalid_tag'],
    ['/api/id/segment/%E0%A4%A', 'invalid_tag'],
    ['/api/id/segment/%F0%9F%8D%81', 'invalid_tag'],
    ['/api/id/segment/order;drop%20table', 'invalid_tag'],
    ["/api/id/segment/o'rder", 'invalid_tag'],
    [`/api/id/segment/${'x'.repeat(129)}`, 'invalid_tag'],
    ['/api/segment/get/order?count=2', 'invalid_request'],
    ['/api/id/segment/order/range', 'invalid_count'],
    ['/api/id/segment/order/range?count=0', 'invalid_count'],
    ['/api/id/segment/order/range?count=10000001', 'invalid_count'],
    ['/api/id/segment/order/range?count=123456789', 'invalid_count'],
    ['/api/id/segment/order/range?count=-1', 'invalid_count'],
    ['/api/id/segment/order/range?count=1.5', 'invalid_count'],
    ['/api/id/segment/order/range?count=01', 'invalid_count'],
    ['/api/id/segment/order/range?count=1&count=2', 'invalid_count'],
    ['/api/id/segment/or%20der/range?count=1', 'invalid_tag'],
  ])('%s → 400 %s', async (url, code) => {
    const { call, store } = await setup();
    const before = JSON.stringify([...store.rows]);
    const r = await call(url);
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe(code);
    expect(JSON.stringify([...store.rows])).toBe(before);
  });

  it('range lease: exactly count IDs as decimal-string runs, continuing the single and batch routes', async () => {
    const { call } = await setup();
    expect(JSON.parse((await call('/api/id/segment/order')).body).id).toBe('2');
    const r = await call('/api/id/segment/order/range?count=50');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(r.body)).toEqual({ tag: 'order', count: 50, ranges: [{ start: '3', end: '52' }] });
    expect(JSON.parse((await call('/api/id/segment/order?count=2')).body).ids).toEqual(['53', '54']);
    const encoded = JSON.parse((await call('/api/id/segment/a.b%3Ac-d_9/range?count=%33')).body);
    expect(encoded).toEqual({ tag: 'a.b:c-d_9', count: 3, ranges: [{ start: '2', end: '4' }] });
  });

  it('range lease of 10,000,000: one run, an answer of constant size', async () => {
    const { call } = await setup();
    const small = await call('/api/id/segment/order/range?count=1000');
    const big = await call('/api/id/segment/order/range?count=10000000');
    const body = JSON.parse(big.body);
    expect(body.count).toBe(10_000_000);
    expect(body.ranges).toHaveLength(1);
    expect(Number(body.ranges[0].end) - Number(body.ranges[0].start) + 1).toBe(10_000_000);
    expect(big.body.length).toBeLessThan(small.body.length + 20);
  });

  it('a tag called "range" is still a tag; range of an unknown tag is 404', async () => {
    const { call, store, segments } = await setup();
    store.rows.set('range', { maxId: 1, step: 10 });
    await segments.refreshTags();
    expect(JSON.parse((await call('/api/id/segment/range')).body)).toEqual({ tag: 'range', id: '2' });
    expect(JSON.parse((await call('/api/id/segment/range/range?count=2')).body).ranges).toEqual([
      { start: '3', end: '4' },
    ]);
    const unknown = await call(`/api/id/segment/${'x'.repeat(128)}/range?count=5`);
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe('tag_not_found');
  });

  it('128-character tag is valid syntax (unknown → 404)', async () => {
    const { call } = await setup();
    const r = await call(`/api/id/segment/${'x'.repeat(128)}`);
    expect(r.status).toBe(404);
    expect(errorCode(r)).toBe('tag_not_found');
  });

  it.each([
    '/api/id/segment/',
    '/api/id/segment/order/extra',
    '/api/id/segment//range',
    '/api/id/segment/a/b/range',
    '/api/id/segment/order/range/x',
    '/api/id',
    '/api/id/nope',
    '/api/segment/get/',
    '/api/segment',
  ])('%s → 404 route_not_found JSON', async (url) => {
    const { call } = await setup();
    const r = await call(url);
    expect(r.status).toBe(404);
    expect(errorCode(r)).toBe('route_not_found');
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'])('%s → 405 with Allow: GET', async (method) => {
    const { call } = await setup();
    const r = await call('/api/id/segment/order', method);
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET');
    expect(errorCode(r)).toBe('method_not_allowed');
  });

  it('leaves other paths to Next', async () => {
    const { handle } = await setup();
    for (const url of ['/', '/tags/order', '/api/identity', '/api/ids', '/_next/static/x.js'])
      expect(handle('GET', url)).toBeNull();
  });

  it('store down with empty buffers → 503 JSON, never 500', async () => {
    const { call, store } = await setup();
    store.failWith = new Error('connect ECONNREFUSED 127.0.0.1:3306');
    const r = await call('/api/id/segment/order');
    expect(r.status).toBe(503);
    expect(errorCode(r)).toBe('store_unavailable');
    expect(r.body).not.toMatch(/ECONNREFUSED|3306/); // driver details are logged, not sent
  });

  it('health reports store reachability and tags', async () => {
    const { call, store } = await setup();
    await call('/api/id/segment/order');
    const ok = JSON.parse((await call('/api/health')).body);
    expect(ok).toMatchObject({
      status: 'ok',
      store: { dialect: 'sqlite', reachable: true },
      tags: { known: 2, loaded: 1 },
    });
    store.failWith = new Error('down');
    const r = await call('/api/health');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ status: 'degraded', store: { reachable: false } });
  });

  it('health lists each database host; one unreachable, not Synced, non-Primary or not ready makes it degraded, the rest unchanged', async () => {
    const { segments, store } = await setup();
    let hosts: HostHealth[] = [];
    const withHosts = Object.assign(Object.create(store) as object, {
      hosts: async () => hosts,
    }) as unknown as LeafStore;
    const clock = new FakeClock();
    const handle = createIdHandler({ runtime: () => ({ segments, store: withHosts, snowflake: null }), clock });
    const health = async () => {
      clock.advance(1_000); // past the probe cache
      return JSON.parse(((await handle('GET', '/api/health')) as Answer).body);
    };
    const synced = { state: 'Synced', clusterSize: 3, ready: true, clusterStatus: 'Primary' };
    const firstHost: HostHealth = { host: '127.0.0.1:3611', reachable: true, latencyMs: 1.2, galera: synced };
    hosts = [firstHost, { host: '127.0.0.1:3612', reachable: true, latencyMs: 0.9 }];
    expect(await health()).toMatchObject({ status: 'ok', store: { dialect: 'sqlite', reachable: true, hosts } });
    hosts = [firstHost, { host: '127.0.0.1:3612', reachable: false, latencyMs: 1, error: 'ECONNREFUSED' }];
    expect(await health()).toMatchObject({ status: 'degraded', store: { reachable: true, hosts } });
    hosts = [{ host: '127.0.0.1:3611', reachable: true, latencyMs: 1, galera: { ...synced, state: 'Donor/Desynced' } }];
    expect(await health()).toMatchObject({ status: 'degraded', store: { reachable: true } });
    // Synced by its own word but outside the primary component, or not accepting queries: still degraded.
    hosts = [
      { host: '127.0.0.1:3611', reachable: true, latencyMs: 1, galera: { ...synced, clusterStatus: 'non-Primary' } },
    ];
    expect(await health()).toMatchObject({ status: 'degraded' });
    hosts = [{ host: '127.0.0.1:3611', reachable: true, latencyMs: 1, galera: { ...synced, ready: false } }];
    expect(await health()).toMatchObject({ status: 'degraded' });
    hosts = [{ host: '127.0.0.1:3611', reachable: true, latencyMs: 1, galera: synced }];
    expect(await health()).toMatchObject({ status: 'ok' });
  });

  describe('health probes the hosts at most once a second', () => {
    async function probed(hostsCacheMs?: number) {
      const { segments, store } = await setup();
      const clock = new FakeClock();
      const calls: Array<{
        timeoutMs: number | undefined;
        resolve(hosts: HostHealth[]): void;
        reject(e: Error): void;
      }> = [];
      const hosts = (timeoutMs?: number) =>
        new Promise<HostHealth[]>((resolve, reject) => calls.push({ timeoutMs, resolve, reject }));
      const withHosts = Object.assign(Object.create(store) as object, { hosts }) as unknown as LeafStore;
      const handle = createIdHandler({
        runtime: () => ({ segments, store: withHosts, snowflake: null }),
        clock,
        hostsCacheMs,
        healthTimeoutMs: 700,
      });
      const health = () =>
        Promise.resolve(handle('GET', '/api/health') as Answer | Promise<Answer>).then((r) => JSON.parse(r.body));
      return { clock, calls, health };
    }
    const up = (latencyMs: number): HostHealth[] => [{ host: '127.0.0.1:3611', reachable: true, latencyMs }];
    const tick = () => new Promise((r) => setImmediate(r));

    it('concurrent calls share one probe in flight', async () => {
      const { calls, health } = await probed();
      const answers = [health(), health(), health()];
      await tick();
      expect(calls).toHaveLength(1);
      expect(calls[0]?.timeoutMs).toBe(700);
      calls[0]?.resolve(up(2));
      for (const body of await Promise.all(answers)) expect(body.store.hosts).toEqual(up(2));
    });

    it('reuses the result for 1 s after it finished, then probes again', async () => {
      const { clock, calls, health } = await probed();
      const first = health();
      await tick();
      clock.advance(5_000); // a slow probe: the second counts from when it finished, not from when it started
      calls[0]?.resolve(up(1));
      expect((await first).store.hosts).toEqual(up(1));
      clock.advance(999);
      expect((await health()).store.hosts).toEqual(up(1));
      expect(calls).toHaveLength(1);
      clock.advance(1);
      const later = health();
      await tick();
      expect(calls).toHaveLength(2);
      calls[1]?.resolve(up(3));
      expect((await later).store.hosts).toEqual(up(3));
    });

    it('a probe that throws is not retried within the second, and the answer simply lacks hosts', async () => {
      const { clock, calls, health } = await probed();
      const first = health();
      await tick();
      calls[0]?.reject(new Error('boom'));
      expect((await first).store).not.toHaveProperty('hosts');
      expect((await health()).store).not.toHaveProperty('hosts');
      expect(calls).toHaveLength(1);
      clock.advance(1_000);
      const later = health();
      await tick();
      calls[1]?.resolve(up(1));
      expect((await later).store.hosts).toEqual(up(1));
    });

    it('hostsCacheMs 0 still shares a probe in flight but reuses nothing after it', async () => {
      const { calls, health } = await probed(0);
      const both = [health(), health()];
      await tick();
      expect(calls).toHaveLength(1);
      calls[0]?.resolve(up(1));
      await Promise.all(both);
      const next = health();
      await tick();
      expect(calls).toHaveLength(2);
      calls[1]?.resolve(up(2));
      expect((await next).store.hosts).toEqual(up(2));
    });
  });

  it('health has no hosts list for a store without hosts (SQLite)', async () => {
    const { call } = await setup();
    expect(JSON.parse((await call('/api/health')).body).store).not.toHaveProperty('hosts');
  });

  it('LEAF_ID_TOKEN: ID routes need the Bearer token, health stays open', async () => {
    const { segments, store } = await setup();
    const handle = createIdHandler({
      runtime: () => ({ segments, store: store as unknown as LeafStore, snowflake: null }),
      idToken: 'id-secret',
    });
    const call = async (url: string, auth?: string) => (await handle('GET', url, auth)) as Answer;
    expect((await call('/api/id/segment/order')).status).toBe(401);
    expect(errorCode(await call('/api/id/segment/order', 'Bearer wrong'))).toBe('unauthorized');
    expect((await call('/api/segment/get/order', 'Bearer id-secret')).status).toBe(200);
    expect((await call('/api/id/snowflake')).status).toBe(401);
    expect((await call('/api/health')).status).toBe(200);
  });

  it('a runtime that failed to open answers 503 not_ready', async () => {
    const { LeafError } = await import('@/lib/errors');
    const handle = createIdHandler({
      runtime: () => Promise.reject(new LeafError('not_ready', 'starting')),
    });
    const r = (await handle('GET', '/api/id/segment/order')) as Answer;
    expect(r.status).toBe(503);
    expect(errorCode(r)).toBe('not_ready');
  });
});
