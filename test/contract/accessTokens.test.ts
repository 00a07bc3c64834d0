import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollFor } from '../../tools/harness/wait';
import { type ServerProcess, startServer } from '../support/serverProcess';
import { clientFetch } from '../support/clientIds';

/**
 * Per-tag access tokens through the real server: two nodes on one SQLite file, one on the fast lane and one with
 * LEAF_FAST_LANE=off (Next's catch-all route), so both lanes and a revoke reaching another node are covered.
 */
const ADMIN = 'access-token-contract-admin-0123456789';
const REFRESH_MS = 400;

let dir: string;
let fast: ServerProcess;
let nextLane: ServerProcess;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-tokens-'));
  const env = {
    LEAF_ADMIN_TOKEN: ADMIN,
    LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
    LEAF_TOKEN_REFRESH_MS: String(REFRESH_MS),
  };
  fast = await startServer(env);
  nextLane = await startServer({ ...env, LEAF_FAST_LANE: 'off' });
  const created = await admin(fast, 'POST', '/api/admin/tags', { bizTag: 'other', step: 100 });
  expect(created.status).toBe(201);
}, 90_000);

afterAll(async () => {
  await Promise.all([fast?.stop(), nextLane?.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const admin = (server: ServerProcess, method: string, target: string, body?: unknown) =>
  server.api(target, { method, body });

/** An ID route as a client asks it (test/support/clientIds.ts: retryable answers retried). */
const get = (server: ServerProcess, target: string, token?: string) =>
  clientFetch(`${server.url}${target}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

/** What each ID route answers on `server` with `token`: `status code` (code empty on success). */
async function answers(server: ServerProcess, token: string | undefined, tag: string): Promise<string[]> {
  const routes = [
    `/api/id/segment/${tag}`,
    `/api/id/segment/${tag}?count=3`,
    `/api/id/segment/${tag}/range?count=10`,
    `/api/segment/get/${tag}`,
  ];
  return Promise.all(
    routes.map(async (r) => {
      const a = await get(server, r, token);
      const text = await a.text();
      if (a.status === 200) return '200';
      expect(a.headers.get('content-type'), r).toMatch(/^application\/json/);
      return `${a.status} ${JSON.parse(text).error.code}`;
    }),
  );
}

describe('access tokens on both lanes', () => {
  let secret = '';
  let id = '';

  it('with no token ever created the ID routes stay open (LEAF_ID_TOKEN unset, as before)', async () => {
    expect(await answers(fast, undefined, 'demo')).toEqual(['200', '200', '200', '200']);
    expect(await answers(nextLane, undefined, 'demo')).toEqual(['200', '200', '200', '200']);
  });

  it('creating one answers the token once; lists and the database never hold it', async () => {
    const r = await admin(fast, 'POST', '/api/admin/tokens', { name: 'orders service', tags: ['demo'] });
    expect(r.status).toBe(201);
    const body = await r.json();
    secret = body.secret;
    id = body.token.id;
    expect(secret).toMatch(/^lts_[A-Za-z0-9_-]{43}$/);
    expect(body.token).toMatchObject({
      name: 'orders service',
      tags: ['demo'],
      revokedAt: null,
      createdBy: expect.stringMatching(/^token:/),
    });
    const list = await (await admin(nextLane, 'GET', '/api/admin/tokens')).text();
    expect(list).toContain(id);
    expect(list).not.toContain(secret);
    expect(list).not.toContain('Hash');
    const db = new Database(path.join(dir, 'leaf.db'), { readonly: true });
    try {
      expect(JSON.stringify(db.prepare('SELECT * FROM leaf_token').all())).not.toContain(secret);
      const audit = db.prepare("SELECT action, after FROM leaf_audit WHERE action LIKE 'token.%'").all() as Array<{
        after: string;
      }>;
      expect(audit).toHaveLength(1);
      expect(audit[0]!.after).not.toContain(secret);
    } finally {
      db.close();
    }
  });

  it('the token draws its tag on both lanes; another tag is 403 JSON; no token or an unknown one is 401', async () => {
    expect(await answers(fast, secret, 'demo')).toEqual(['200', '200', '200', '200']);
    // The other node learns of the token within its refresh interval: until then it is still open (a request
    // without a token is served), so wait for it to refuse one.
    const closed = await pollFor(
      REFRESH_MS * 10,
      async () => ((await get(nextLane, '/api/id/segment/demo')).status === 401 ? true : undefined),
      50,
    );
    expect(closed).toBe(true);
    expect(await answers(nextLane, secret, 'demo')).toEqual(['200', '200', '200', '200']);
    for (const server of [fast, nextLane]) {
      expect(await answers(server, secret, 'other'), server === fast ? 'fast lane' : 'Next lane').toEqual(
        Array(4).fill('403 forbidden_tag'),
      );
      expect((await get(server, '/api/id/snowflake', secret)).status).toBe(403);
      expect(await answers(server, undefined, 'demo')).toEqual(Array(4).fill('401 unauthorized'));
      expect(await answers(server, secret + 'x', 'demo')).toEqual(Array(4).fill('401 unauthorized'));
      expect((await get(server, '/api/health')).status).toBe(200);
    }
  });

  it('revoked: 401 at once on the node that revoked, on the other within its refresh interval', async () => {
    const r = await admin(fast, 'DELETE', `/api/admin/tokens/${id}`);
    expect(r.status).toBe(200);
    expect((await r.json()).token.revokedAt).toEqual(expect.any(Number));
    expect(await answers(fast, secret, 'demo')).toEqual(Array(4).fill('401 unauthorized'));
    const refused = await pollFor(
      REFRESH_MS * 10,
      async () => ((await get(nextLane, '/api/id/segment/demo', secret)).status === 401 ? true : undefined),
      50,
    );
    expect(refused).toBe(true);
    // Every token revoked: the routes do not fall open again.
    expect(await answers(nextLane, undefined, 'demo')).toEqual(Array(4).fill('401 unauthorized'));
    const list = await (await admin(fast, 'GET', '/api/admin/tokens')).json();
    expect(list.tokens.map((t: { id: string; revokedAt: number | null }) => [t.id, t.revokedAt !== null])).toEqual([
      [id, true],
    ]);
    const again = await admin(fast, 'DELETE', `/api/admin/tokens/${id}`);
    expect(again.status).toBe(200);
    const audit = await (await admin(fast, 'GET', '/api/admin/audit')).json();
    expect(
      audit.entries
        .filter((e: { action: string }) => e.action.startsWith('token.'))
        .map((e: { action: string }) => e.action),
    ).toEqual(['token.revoke', 'token.create']);
  });

  it('the token routes need the admin credential and refuse bad input with 4xx JSON', async () => {
    expect((await get(fast, '/api/admin/tokens', secret)).status).toBe(401);
    const cases: Array<[string, string, unknown, number]> = [
      ['POST', '/api/admin/tokens', { name: '', tags: ['demo'] }, 400],
      ['POST', '/api/admin/tokens', { name: 'x', tags: [] }, 400],
      ['POST', '/api/admin/tokens', { name: 'x', tags: ['bad tag'] }, 400],
      ['DELETE', '/api/admin/tokens/AAAAAAAAAAAA', undefined, 404],
      ['DELETE', '/api/admin/tokens/short', undefined, 404],
      ['PUT', '/api/admin/tokens', undefined, 405],
    ];
    for (const [method, target, body, status] of cases) {
      for (const server of [fast, nextLane]) {
        const r = await admin(server, method, target, body);
        expect(r.status, `${method} ${target}`).toBe(status);
        expect((await r.json()).error.code).toEqual(expect.any(String));
      }
    }
  });
});
