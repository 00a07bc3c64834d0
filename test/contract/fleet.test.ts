import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollFor } from '@/tools/harness/wait';
import { type ApiInit, type ServerProcess, startServer } from '../support/serverProcess';
import { takeIds } from '../support/clientIds';

/** The console's fleet routes on the real server (one node; the two-node picture is e2e/fleet.spec.ts). */
const TOKEN = 'contract-fleet-token-0123456789';
let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({
    LEAF_ADMIN_TOKEN: TOKEN,
    LEAF_NODE_ID: 'contract-node',
    LEAF_NODE_HEARTBEAT_MS: '200',
    LEAF_NODE_GONE_MS: '1000',
    LEAF_RUNWAY_WARN_SECONDS: '30',
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const api = (path: string, init?: ApiInit) => server.api(path, init);

async function json<T>(path: string): Promise<T> {
  const r = await api(path);
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json()) as T;
}

describe('fleet routes', () => {
  it.each(['/api/admin/fleet', '/api/admin/nodes/contract-node/tags'])(
    'GET %s needs the admin credential',
    async (path) => {
      const r = await api(path, { auth: null });
      expect(r.status).toBe(401);
      expect((await r.json()).error.code).toBe('unauthorized');
    },
  );

  it('after IDs are taken, the tag views, the node’s tag page and the fleet summary show this node’s buffer', async () => {
    expect(await takeIds(`${server.url}/api/id/segment/demo?count=10`)).toHaveLength(10);
    // The next heartbeat carries the buffer; the registry's read is cached for up to a second.
    type Page = { nodeId: string; state: string; total: number; tags: { bizTag: string; buffered: number }[] };
    const page = await pollFor(
      10_000,
      async () => {
        const p = await json<Page>('/api/admin/nodes/contract-node/tags?q=DEM&limit=5');
        return p.total > 0 ? p : undefined;
      },
      100,
    );
    if (page === undefined) throw new Error('the node never reported its demo buffer');
    expect(page).toMatchObject({ nodeId: 'contract-node', state: 'up', total: 1, tags: [{ bizTag: 'demo' }] });
    expect(page.tags[0]!.buffered).toBeGreaterThan(0);

    const summary = await json<{ nodes: Record<string, number>; idsBuffered: number; runwayWarnSeconds: number }>(
      '/api/admin/fleet',
    );
    expect(summary.nodes).toEqual({ up: 1, gone: 0, stopped: 0 });
    expect(summary.idsBuffered).toBeGreaterThanOrEqual(page.tags[0]!.buffered - 10);
    expect(summary.runwayWarnSeconds).toBe(30);

    const list = await json<{ tags: { bizTag: string; fleet: { nodesServing: number } | null }[] }>('/api/admin/tags');
    expect(list.tags.find((t) => t.bizTag === 'demo')?.fleet?.nodesServing).toBe(1);

    const detail = await json<{
      tag: { fleet: { nodesServing: number } };
      fleet: { nodes: { nodeId: string; state: string }[]; runwayWarnSeconds: number };
    }>('/api/admin/tags/demo');
    expect(detail.tag.fleet.nodesServing).toBe(1);
    expect(detail.fleet.nodes).toEqual([expect.objectContaining({ nodeId: 'contract-node', state: 'up' })]);
    expect(detail.fleet.runwayWarnSeconds).toBe(30);

    // Every node's own record, merged (one node here): every bucket known, and the IDs just taken in them.
    type History = { nodes: { nodeId: string; missing: string | null }[]; rate: { t: number; ids: number | null }[] };
    const merged = await pollFor(10_000, async () => {
      const h = await json<History>('/api/admin/tags/demo/history/fleet');
      return h.rate.reduce((s, p) => s + (p.ids ?? 0), 0) >= 10 ? h : undefined;
    });
    expect(merged?.nodes).toEqual([
      { nodeId: 'contract-node', state: 'up', history: expect.any(Object), missing: null },
    ]);
    expect(merged?.rate.every((p) => p.ids !== null)).toBe(true);
  });

  it('one process has one instanceId: the node list and the snowflake worker list agree', async () => {
    const nodes = await json<{ nodes: { nodeId: string; instanceId: string }[] }>('/api/admin/nodes');
    const workers = await json<{ workers: { nodeId: string; instanceId: string }[] }>('/api/admin/workers');
    const self = nodes.nodes.find((n) => n.nodeId === 'contract-node');
    const worker = workers.workers.find((w) => w.nodeId === 'contract-node');
    expect(self).toBeDefined();
    expect(worker?.instanceId).toBe(self!.instanceId);
  });

  it.each([
    ['/api/admin/nodes/contract-node/tags?limit=0', 400, 'invalid_request'],
    ['/api/admin/nodes/contract-node/tags?limit=501', 400, 'invalid_request'],
    ['/api/admin/nodes/contract-node/tags?limit=ten', 400, 'invalid_request'],
    ['/api/admin/nodes/no-such-node/tags', 404, 'node_not_found'],
  ])('GET %s → %i %s', async (path, status, code) => {
    const r = await api(path);
    expect(r.status).toBe(status);
    expect((await r.json()).error.code).toBe(code);
  });

  it('answers 405 JSON with Allow to other methods', async () => {
    const r = await api('/api/admin/fleet', { method: 'POST' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
  });
});
