/**
 * The fleet over HTTP, two real servers on one SQLite file: GET /api/admin/nodes (credential, shapes, query
 * params, refusals), and a tag created through one node served by the other at once (its miss waits for the next
 * tag-list re-read instead of answering 404).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import packageJson from '../../package.json';
import type { NodeAnswer } from '../../lib/fleet/nodeView';
import { pollFor } from '../../tools/harness';
import { type ApiInit, type ServerProcess, startServer } from '../support/serverProcess';
import { clientGet, takeIds } from '../support/clientIds';

const TOKEN = 'contract-nodes-token-0123456789';
let dir: string;
let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-contract-nodes-'));
  const env = {
    LEAF_ADMIN_TOKEN: TOKEN,
    LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
    LEAF_NODE_HEARTBEAT_MS: '200',
    LEAF_NODE_GONE_MS: '2000',
  };
  a = await startServer({ ...env, LEAF_NODE_ID: 'node-a' });
  b = await startServer({ ...env, LEAF_NODE_ID: 'node-b' });
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const api = (server: ServerProcess, target: string, init?: ApiInit) => server.api(target, init);

async function nodes(server: ServerProcess, query = ''): Promise<NodeAnswer[]> {
  const r = await api(server, `/api/admin/nodes${query}`);
  expect(r.status).toBe(200);
  return ((await r.json()) as { nodes: NodeAnswer[] }).nodes;
}

describe('GET /api/admin/nodes', () => {
  it('needs the admin credential', async () => {
    for (const auth of [null, 'wrong-token']) {
      const r = await api(a, '/api/admin/nodes', { auth });
      expect(r.status).toBe(401);
      expect((await r.json()).error.code).toBe('unauthorized');
    }
  });

  it('lists both nodes, sorted, up, with address, version and each tag they hold', async () => {
    expect(await takeIds(`${a.url}/api/id/segment/demo`)).toHaveLength(1);
    const port = new URL(a.url).port;
    const list = await pollFor(5_000, async () => {
      const n = await nodes(b);
      return n.find((x) => x.nodeId === 'node-a')?.tags?.demo !== undefined ? n : undefined;
    });
    expect(list?.map((n) => [n.nodeId, n.state])).toEqual([
      ['node-a', 'up'],
      ['node-b', 'up'],
    ]);
    const nodeA = list![0]!;
    expect(nodeA).toMatchObject({ address: `127.0.0.1:${port}`, version: packageJson.version, tagsHeld: 1 });
    expect(Date.parse(nodeA.lastHeartbeat)).toBeGreaterThan(Date.now() - 5_000);
    expect(nodeA.snowflake.workerId).toEqual(expect.any(Number));
    expect(nodeA.tags?.demo).toMatchObject({
      step: 1000,
      next: expect.stringMatching(/^(ready|loading|none|failed)$/),
    });
    expect(nodeA.tags?.demo?.buffered).toBe(nodeA.idsBuffered);
    expect(nodeA.tags?.demo?.buffered).toBeGreaterThan(0);
  });

  it('?tag= keeps one tag, ?tags=none none (totals stay), and anything else is a 400', async () => {
    const one = await nodes(a, '?tag=demo');
    expect(Object.keys(one.find((n) => n.nodeId === 'node-a')?.tags ?? {})).toEqual(['demo']);
    expect((await nodes(a, '?tag=absent')).every((n) => JSON.stringify(n.tags) === '{}')).toBe(true);
    const none = await nodes(a, '?tags=none');
    expect(
      none.every((n) => !('tags' in n) && typeof n.tagsHeld === 'number' && typeof n.idsBuffered === 'number'),
    ).toBe(true);
    for (const [query, code] of [
      ['?tags=all', 'invalid_request'],
      ['?tag=demo&tags=none', 'invalid_request'],
      ['?tag=bad%20tag', 'invalid_tag'],
    ]) {
      const r = await api(a, `/api/admin/nodes${query}`);
      expect(r.status).toBe(400);
      expect((await r.json()).error.code).toBe(code);
    }
  });

  it('other methods are 405 with Allow: GET', async () => {
    const r = await api(a, '/api/admin/nodes', { method: 'POST', body: '{}' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
  });
});

/**
 * A miss waits for one re-read of the tag list (~ms), never the 60 s periodic one: each request's own bound (a
 * liveness bound, far from both) tells them apart; the first answer must be the ID, not a 404.
 */
const MISS = { attemptMs: 20_000 };

describe('a new tag on every node', () => {
  it('is served by the other node at once after its creation (the miss waits for the next re-read, not 404)', async () => {
    for (let i = 0; i < 3; i++) {
      const tag = `fresh-${i}`;
      const created = await api(a, '/api/admin/tags', {
        method: 'POST',
        body: JSON.stringify({ bizTag: tag, step: 10 }),
      });
      expect(created.status).toBe(201);
      expect(await takeIds(`${b.url}/api/id/segment/${tag}`, MISS)).toHaveLength(1);
    }
    expect((await clientGet(`${b.url}/api/id/segment/never-created`, MISS)).status).toBe(404);
  });
});
