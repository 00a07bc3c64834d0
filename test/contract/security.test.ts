/**
 * The console and API against an attacker (issue 38), on real servers, each attack sent as it is and its refusal
 * asserted, with nothing changed: sessions end at logout on every node at once, and when the admin token changes;
 * pages carry a CSP with a nonce and cannot be framed; a slow client gets 408 within the bound instead of holding
 * a connection for minutes; control and bidi-override characters are refused; HEAD /api/health and the favicon answer.
 * The origin attacks are in consoleOrigin.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw } from '../support/rawHttp';
import { type ServerProcess, startServer } from '../support/serverProcess';

const TOKEN = 'contract-security-token-0123456789';
/** Short, so the slow-client cases take seconds; the default is 10 s (LEAF_REQUEST_TIMEOUT_MS). */
const REQUEST_TIMEOUT_MS = 2_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-security-'));
const file = path.join(dir, 'leaf.db');
let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  // Two nodes on one database: what one ends, the other must refuse.
  const env = { LEAF_ADMIN_TOKEN: TOKEN, LEAF_SQLITE_FILE: file, LEAF_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) };
  a = await startServer({ ...env, LEAF_TRUSTED_PROXIES: '127.0.0.1' });
  b = await startServer(env);
}, 90_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

async function login(server: ServerProcess, userAgent = 'security-test'): Promise<string> {
  const r = await server.api('/api/auth/login', {
    method: 'POST',
    auth: null,
    body: { token: TOKEN },
    headers: { 'user-agent': userAgent },
  });
  expect(r.status, await r.text()).toBe(200);
  return String(r.headers.get('set-cookie')).split(';')[0]!;
}
const signedIn = async (server: ServerProcess, cookie: string) =>
  ((await (await server.api('/api/auth/session', { auth: null, cookie })).json()) as { authenticated: boolean })
    .authenticated;
const createTag = (server: ServerProcess, cookie: string, bizTag: string) =>
  server.api('/api/admin/tags', { method: 'POST', auth: null, cookie, body: { bizTag, step: 10 } });
const tagStatus = async (bizTag: string) => (await a.api(`/api/admin/tags/${bizTag}`)).status;

describe('sessions end when they are ended', () => {
  it('logout on node A: the same cookie is refused on A and on B at their next request, and creates nothing', async () => {
    const cookie = await login(a);
    expect(await signedIn(b, cookie)).toBe(true);
    const out = await a.api('/api/auth/logout', { method: 'POST', auth: null, cookie });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    // The attack: the cookie kept after logout (the browser dropped it; a thief did not).
    expect(await signedIn(a, cookie)).toBe(false);
    expect(await signedIn(b, cookie)).toBe(false);
    for (const server of [a, b]) {
      const r = await createTag(server, cookie, 'after-logout');
      expect(r.status).toBe(401);
    }
    expect(await tagStatus('after-logout')).toBe(404);
  });

  it('the console lists live sessions (signed in, last seen, address, browser); ending one refuses it on every node', async () => {
    const mine = await login(a, 'browser-one');
    const theirs = await login(b, 'browser-two');
    const list = await a.api('/api/auth/sessions', { auth: null, cookie: mine });
    expect(list.status).toBe(200);
    const { sessions } = (await list.json()) as {
      sessions: Array<{ id: string; current: boolean; userAgent: string; address: string; lastSeenAt: number }>;
    };
    const own = sessions.find((s) => s.current)!;
    const other = sessions.find((s) => s.userAgent === 'browser-two')!;
    expect(own.userAgent).toBe('browser-one');
    expect(other.address).toBe('127.0.0.1');
    expect(JSON.stringify(sessions)).not.toContain(mine.split('=')[1]!);
    const end = await a.api(`/api/auth/sessions/${other.id}`, { method: 'DELETE', auth: null, cookie: mine });
    expect(end.status, await end.text()).toBe(200);
    expect(await signedIn(b, theirs)).toBe(false);
    expect(await signedIn(a, mine)).toBe(true);
    const again = await a.api(`/api/auth/sessions/${other.id}`, { method: 'DELETE', auth: null, cookie: mine });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('session_not_found');
  });

  it('sign out everywhere ends every session, the caller’s too, and is in the audit trail', async () => {
    const one = await login(a);
    const two = await login(b);
    const r = await b.api('/api/auth/sessions', { method: 'DELETE', auth: null, cookie: two });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { ended: number }).ended).toBeGreaterThanOrEqual(2);
    expect(r.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect(await signedIn(a, one)).toBe(false);
    expect(await signedIn(b, two)).toBe(false);
    const audit = (await (await a.api('/api/admin/audit?limit=20')).json()) as { entries: Array<{ action: string }> };
    expect(audit.entries.map((e) => e.action)).toContain('auth.sign_out_everywhere');
  });

  it('a changed admin token ends every session: a node with the new token refuses the old cookie and lists none', async () => {
    const cookie = await login(a);
    const rotated = await startServer({ LEAF_ADMIN_TOKEN: `${TOKEN}-rotated`, LEAF_SQLITE_FILE: file });
    try {
      expect(await signedIn(rotated, cookie)).toBe(false);
      const list = await rotated.api('/api/auth/sessions');
      expect(((await list.json()) as { sessions: unknown[] }).sessions).toEqual([]);
    } finally {
      await rotated.stop();
    }
  }, 60_000);
});

describe('security headers', () => {
  it.each(['/', '/login', '/tags/demo'])(
    '%s: a CSP with a nonce of its own, no framing, nosniff, referrer and permissions policies',
    async (target) => {
      const pages = await Promise.all([a.api(target, { auth: null }), a.api(target, { auth: null })]);
      const nonces = [];
      for (const r of pages) {
        const csp = r.headers.get('content-security-policy') ?? '';
        expect(csp).toMatch(/default-src 'self'/);
        expect(csp).toMatch(/frame-ancestors 'none'/);
        expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
        const nonce = /script-src 'self' 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
        expect(nonce).toBeDefined();
        nonces.push(nonce);
        expect(r.headers.get('x-frame-options')).toBe('DENY');
        expect(r.headers.get('x-content-type-options')).toBe('nosniff');
        expect(r.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
        expect(r.headers.get('permissions-policy')).toMatch(/camera=\(\)/);
        expect(r.headers.get('strict-transport-security')).toBeNull(); // plain HTTP
        // Every script the page carries runs by this response's nonce.
        const html = await r.text();
        const scripts = html.match(/<script\b[^>]*>/g) ?? [];
        expect(scripts.length).toBeGreaterThan(0);
        for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
      }
      expect(nonces[0]).not.toBe(nonces[1]);
    },
  );

  it('HSTS when a trusted proxy says the client used TLS, and only then', async () => {
    const tls = await a.api('/login', { auth: null, headers: { 'x-forwarded-proto': 'https' } });
    expect(tls.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    const claimed = await b.api('/login', { auth: null, headers: { 'x-forwarded-proto': 'https' } }); // no proxy trusted
    expect(claimed.headers.get('strict-transport-security')).toBeNull();
  });

  it.each(['/api/health', '/api/id/segment/demo', '/api/admin/tags', '/api/auth/session', '/api/metrics', '/api/nope'])(
    '%s: nosniff and no-store on every API answer',
    async (target) => {
      const r = await a.api(target);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('cache-control')).toBe('no-store');
    },
  );
});

describe('slow clients', () => {
  const bound = REQUEST_TIMEOUT_MS + 1_000 + 15_000; // the timeout, Node's 1 s check, and room for a busy machine
  it.each([
    [
      'a body that stops after 10 of 100 bytes (login)',
      'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"token":"',
    ],
    [
      'a body that stops after 10 of 100 bytes (admin write)',
      'POST /api/admin/tags HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"bizTag":',
    ],
    ['headers that never finish', 'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nX-Slow: '],
    ['an ID route whose headers never finish', 'GET /api/id/segment/demo HTTP/1.1\r\nHost: x\r\n'],
  ])('%s: 408 JSON and the connection closes, within the bound', async (_, request) => {
    const r = await raw(Number(new URL(a.url).port), Buffer.from(request, 'latin1'), 30_000);
    expect(r.timedOut).toBe(false);
    expect(r.status, r.body).toBe(408);
    expect(JSON.parse(r.body).error.code).toBe('request_timeout');
    expect(r.ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(r.ms).toBeLessThan(bound);
  });
});

describe('text people read later', () => {
  it.each([
    ['NUL', 'before\u0000after'],
    ['an escape', 'red \u001b[31m'],
    ['U+202E (right-to-left override)', 'invoice \u202Efdp.exe'],
    ['U+2066 (left-to-right isolate)', 'a \u2066b'],
  ])('a description with %s is refused with 400, and nothing is created or changed', async (_, description) => {
    const bizTag = `bidi-${Math.random().toString(36).slice(2, 8)}`;
    const r = await a.api('/api/admin/tags', { method: 'POST', body: { bizTag, step: 10, description } });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { fields: Record<string, string> } }).error.fields.description).toMatch(
      /Control characters and bidi overrides/,
    );
    expect(await tagStatus(bizTag)).toBe(404);
    // The stored row, not the live parts of the view (engine state, fleet rates and history move with the clock).
    const row = async () => {
      const {
        engine: _engine,
        fleet: _fleet,
        ...stored
      } = (
        (await (await a.api('/api/admin/tags/demo')).json()) as {
          tag: Record<string, unknown>;
        }
      ).tag;
      return stored;
    };
    const before = await row();
    expect((await a.api('/api/admin/tags/demo', { method: 'PATCH', body: { description } })).status).toBe(400);
    expect(await row()).toEqual(before);
    const token = await a.api('/api/admin/tokens', { method: 'POST', body: { name: description, tags: ['demo'] } });
    expect(token.status).toBe(400);
  });

  it('ordinary Unicode (accents, CJK, emoji, Arabic) is kept as typed', async () => {
    const description = 'Commandes — 订单 ✓ طلبات';
    const r = await a.api('/api/admin/tags', { method: 'POST', body: { bizTag: 'unicode-ok', step: 10, description } });
    expect(r.status).toBe(201);
    expect(((await r.json()) as { tag: { description: string } }).tag.description).toBe(description);
  });
});

describe('what load balancers and browsers ask for', () => {
  it('HEAD /api/health answers 200 without a body, on the fast lane', async () => {
    const r = await raw(
      Number(new URL(a.url).port),
      Buffer.from('HEAD /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.body).toBe('');
  });

  it('HEAD on an ID route is refused (it would spend IDs), with Allow: GET', async () => {
    const r = await a.api('/api/id/segment/demo', { method: 'HEAD' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
  });

  it('/favicon.ico is an icon, not a 404', async () => {
    const r = await a.api('/favicon.ico', { auth: null });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
    expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });
});
