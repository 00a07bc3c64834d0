import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenActor } from '../../lib/auth/credentials';
import { sleep } from '../../tools/harness';
import { type ApiInit, apiRequest, type ServerProcess, startServer } from '../support/serverProcess';

/**
 * The audit trail and the admin hardening on the real server: who, from where and what each change and login
 * records; the listing's parameters; the login throttle; and revoking every session by rotating the token.
 */
const TOKEN = 'contract-audit-token-0123456789';
let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({ LEAF_ADMIN_TOKEN: TOKEN, LEAF_NODE_ID: 'audit-node-1' });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

interface Entry {
  id: number;
  at: string;
  action: string;
  bizTag: string | null;
  actor: string;
  address: string;
  nodeId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

const call = (base: string, p: string, init?: ApiInit) => apiRequest(base, undefined, p, init);
const api = (p: string, init?: ApiInit) => server.api(p, init);

async function trail(query = ''): Promise<{ entries: Entry[]; nextBefore: number | null }> {
  const r = await api(`/api/admin/audit${query}`);
  expect(r.status, await r.clone().text()).toBe(200);
  return r.json();
}

async function loginAt(base: string, token: string, headers: Record<string, string> = {}): Promise<Response> {
  return call(base, '/api/auth/login', { method: 'POST', body: JSON.stringify({ token }), headers });
}

function sessionCookie(r: Response): string {
  return r.headers.get('set-cookie')!.split(';')[0]!;
}

describe('GET /api/admin/audit', () => {
  it('needs the admin credential; append-only: no other method', async () => {
    for (const auth of [null, 'wrong-token-wrong-token']) {
      const r = await api('/api/admin/audit', { auth });
      expect(r.status).toBe(401);
      expect((await r.json()).error.code).toBe('unauthorized');
    }
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const r = await api('/api/admin/audit', { method, body: '{}' });
      expect(r.status, method).toBe(405);
      expect(r.headers.get('allow')).toBe('GET');
    }
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=201', 'limit'],
    ['?limit=ten', 'limit'],
    ['?before=-3', 'before'],
    ['?before=1e3', 'before'],
    ['?tag=bad%20tag', 'tag'],
    ['?tag=' + 'x'.repeat(129), 'tag'],
    ['?limit=5&limit=6', 'limit'],
    ['?order=asc', 'order'],
  ])('%s → 400 validation_failed naming %s', async (query, field) => {
    const r = await api(`/api/admin/audit${query}`);
    expect(r.status).toBe(400);
    const { error } = await r.json();
    expect(error.code).toBe('validation_failed');
    expect(error.fields[field]).toEqual(expect.any(String));
  });

  it('records each change with the credential, the socket address (never a client-sent one), the node and the rows', async () => {
    const spoof = { 'x-leaf-client-address': '6.6.6.6' };
    const login = await loginAt(server.url, TOKEN, spoof);
    expect(login.status).toBe(200);
    const cookie = sessionCookie(login);
    const [loginEntry] = (await trail('?limit=1')).entries;
    expect(loginEntry).toMatchObject({
      action: 'auth.login',
      bizTag: null,
      address: '127.0.0.1',
      nodeId: 'audit-node-1',
      before: null,
      after: null,
    });
    expect(loginEntry!.actor).toMatch(/^session:[A-Za-z0-9_-]{16}$/);
    expect(Date.parse(loginEntry!.at)).toBeGreaterThan(Date.now() - 60_000);

    // Through the session: create and edit. Through the Bearer token: raise and delete.
    const asSession = { cookie, auth: null, headers: spoof };
    expect(
      (
        await api('/api/admin/tags', {
          method: 'POST',
          body: JSON.stringify({ bizTag: 'aud-1', step: 10, description: 'one' }),
          ...asSession,
        })
      ).status,
    ).toBe(201);
    expect(
      (await api('/api/admin/tags/aud-1', { method: 'PATCH', body: JSON.stringify({ step: 25 }), ...asSession }))
        .status,
    ).toBe(200);
    expect(
      (
        await api('/api/admin/tags/aud-1', {
          method: 'PATCH',
          body: JSON.stringify({ maxId: '9000', description: 'two' }),
          headers: spoof,
        })
      ).status,
    ).toBe(200);
    // Values equal to the row's change nothing, and no entry says they did.
    expect(
      (
        await api('/api/admin/tags/aud-1', {
          method: 'PATCH',
          body: JSON.stringify({ maxId: 9000, step: 25, description: 'two' }),
        })
      ).status,
    ).toBe(200);
    expect(
      (await api('/api/admin/tags/aud-1', { method: 'DELETE', body: JSON.stringify({ confirm: 'aud-1' }) })).status,
    ).toBe(200);
    // Refused changes leave no entry.
    expect((await api('/api/admin/tags/aud-1', { method: 'PATCH', body: JSON.stringify({ step: 5 }) })).status).toBe(
      404,
    );

    const { entries } = await trail('?tag=aud-1');
    expect(entries.map((e) => [e.action, e.actor])).toEqual([
      ['tag.delete', tokenActor(TOKEN)],
      ['tag.edit', tokenActor(TOKEN)],
      ['tag.raise', tokenActor(TOKEN)],
      ['tag.edit', loginEntry!.actor],
      ['tag.create', loginEntry!.actor],
    ]);
    for (const e of entries) expect(e).toMatchObject({ bizTag: 'aud-1', address: '127.0.0.1', nodeId: 'audit-node-1' });
    const [del, edit2, raise, edit1, create] = entries;
    expect(create!.before).toBeNull();
    expect(create!.after).toMatchObject({ bizTag: 'aud-1', maxId: '1', step: 10, description: 'one' });
    expect(edit1!.before).toMatchObject({ step: 10 });
    expect(edit1!.after).toMatchObject({ step: 25, description: 'one' });
    expect(raise!.before).toMatchObject({ maxId: '1' });
    expect(raise!.after).toMatchObject({ maxId: '9000', description: 'one' });
    expect(edit2!.after).toMatchObject({ maxId: '9000', description: 'two' });
    expect(del!.before).toMatchObject({ maxId: '9000', step: 25 });
    expect(del!.after).toBeNull();
    expect(JSON.stringify(await trail())).not.toContain(TOKEN);

    // Logout of the session is recorded under the same session.
    expect((await call(server.url, '/api/auth/logout', { method: 'POST', cookie })).status).toBe(200);
    expect((await trail('?limit=1')).entries[0]).toMatchObject({ action: 'auth.logout', actor: loginEntry!.actor });
  });

  it('pages newest first with nextBefore, without gaps or repeats', async () => {
    for (let i = 1; i <= 5; i++) {
      const body = i === 1 ? JSON.stringify({ bizTag: 'aud-page', step: 1 }) : JSON.stringify({ step: i });
      expect(
        (
          await api(i === 1 ? '/api/admin/tags' : '/api/admin/tags/aud-page', {
            method: i === 1 ? 'POST' : 'PATCH',
            body,
          })
        ).ok,
      ).toBe(true);
    }
    const all = (await trail('?tag=aud-page')).entries;
    expect(all.map((e) => e.after?.step)).toEqual([5, 4, 3, 2, 1]);
    const paged: Entry[] = [];
    let query = '?tag=aud-page&limit=2';
    for (;;) {
      const page = await trail(query);
      expect(page.entries.length).toBeLessThanOrEqual(2);
      paged.push(...page.entries);
      if (page.nextBefore === null) break;
      expect(page.nextBefore).toBe(page.entries[page.entries.length - 1]!.id);
      query = `?tag=aud-page&limit=2&before=${page.nextBefore}`;
    }
    expect(paged.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect((await trail('?tag=aud-page&limit=5')).nextBefore, 'exactly one page: no next').toBeNull();
    const global = await trail('?limit=200');
    expect(global.entries.some((e) => e.action === 'auth.login')).toBe(true);
    expect(global.entries.map((e) => e.id)).toEqual([...global.entries.map((e) => e.id)].sort((a, b) => b - a));
  });
});

describe('login throttle', () => {
  it('after 5 free failures a wrong token locks the address out: 429 too_many_attempts with Retry-After, even for the right token', async () => {
    expect((await loginAt(server.url, TOKEN)).status).toBe(200); // a success clears the address
    for (let i = 1; i <= 6; i++) {
      const r = await loginAt(server.url, `wrong-${i}`);
      expect(r.status, `failure ${i}`).toBe(401);
    }
    const locked = await loginAt(server.url, TOKEN);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('1');
    expect((await locked.json()).error.code).toBe('too_many_attempts');
    const failed = (await trail('?limit=20')).entries.filter((e) => e.action === 'auth.login_failed');
    expect(failed.length).toBeGreaterThanOrEqual(6);
    expect(failed[0]).toMatchObject({ actor: 'anonymous', address: '127.0.0.1', bizTag: null });

    await sleep(1_100);
    const wrongAgain = await loginAt(server.url, 'wrong-7');
    expect(wrongAgain.status, 'the lock-out ended; this failure doubles the next one').toBe(401);
    const doubled = await loginAt(server.url, TOKEN);
    expect(doubled.status).toBe(429);
    expect(doubled.headers.get('retry-after')).toBe('2');
    // The admin API with the token is not throttled (only logins are).
    expect((await api('/api/admin/tags')).status).toBe(200);
    await sleep(2_100);
    expect((await loginAt(server.url, TOKEN)).status).toBe(200);
  });
});

describe('rotating the admin token', () => {
  it('revokes every session: a node restarted with a new token refuses the old cookie and the old token', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-rotate-'));
    const env = (token: string) => ({ LEAF_ADMIN_TOKEN: token, LEAF_SQLITE_FILE: path.join(dir, 'leaf.db') });
    const OLD = 'rotation-old-token-0123456789';
    const NEW = 'rotation-new-token-9876543210';
    let node: ServerProcess | undefined;
    try {
      node = await startServer(env(OLD));
      const cookie = sessionCookie(await loginAt(node.url, OLD));
      const sessionOf = async (n: ServerProcess) =>
        (await (await call(n.url, '/api/auth/session', { cookie })).json()).authenticated;
      expect((await call(node.url, '/api/admin/tags', { cookie })).status).toBe(200);
      await node.stop();

      // Restarted with the same token: the session survives (the cookie is stateless).
      node = await startServer(env(OLD));
      expect((await call(node.url, '/api/admin/tags', { cookie })).status).toBe(200);
      expect(await sessionOf(node)).toBe(true);
      await node.stop();

      node = await startServer(env(NEW));
      const refused = await call(node.url, '/api/admin/tags', { cookie });
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.code).toBe('unauthorized');
      expect(await sessionOf(node)).toBe(false);
      expect((await call(node.url, '/api/admin/tags', { auth: OLD })).status).toBe(401);
      const audit = await call(node.url, '/api/admin/audit', { auth: NEW });
      expect(audit.status).toBe(200);
      // The trail outlives the rotation: the old session's login is still there.
      expect(((await audit.json()).entries as Entry[]).filter((e) => e.action === 'auth.login')).toHaveLength(1);
    } finally {
      await node?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
