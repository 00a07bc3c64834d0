import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnServer, stopChild } from '@/tools/harness';
import { pollFor } from '@/tools/harness/wait';
import type { ChildProcess } from 'node:child_process';

/**
 * A node whose store never opens (its database refuses every connection): every route answers 503 `not_ready` with
 * the JSON error, and each answer is checked against the API description like every other (openapiContract.ts).
 */
const TOKEN = 'contract-unready-token-0123456789';
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  const dead = await freePort(); // nothing listens there
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawnServer({
    port,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: `mysql://leaf:leaf@127.0.0.1:${dead}/leaf`,
      LEAF_ADMIN_TOKEN: TOKEN,
      LEAF_LOG_LEVEL: 'error',
    },
  });
  const up = await pollFor(30_000, async () => (await fetch(`${url}/api/health`).catch(() => undefined))?.status, 100);
  expect(up).toBe(503);
}, 60_000);
afterAll(async () => {
  if (child !== undefined) await stopChild(child, 5_000);
});

describe('a node whose store never opened', () => {
  it.each([
    ['GET', '/api/health'],
    ['GET', '/api/id/segment/demo'],
    ['GET', '/api/admin/tags'],
  ])('%s %s answers 503 not_ready, as the document says', async (method, path) => {
    const r = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(503);
    expect((await r.json()).error.code).toBe('not_ready');
  });

  it('HEAD /api/health answers 503 without a body', async () => {
    const r = await fetch(`${url}/api/health`, { method: 'HEAD' });
    expect(r.status).toBe(503);
    expect(await r.text()).toBe('');
  });
});
