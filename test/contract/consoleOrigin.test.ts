/**
 * Where a console write comes from, on the real server (issue 31): a write carrying the session cookie must come from
 * the console's own origin — a page on a sibling subdomain or another site gets 403 JSON and changes nothing — while
 * Bearer-token calls and clients that send no Origin go on as before. The session cookie is Secure when a trusted
 * proxy says the client used TLS, and only then.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAnswer } from '../support/openapiCheck';
import { type ServerProcess, startServer } from '../support/serverProcess';

const TOKEN = 'contract-origin-token-0123456789';
let server: ServerProcess;
let port: number;

beforeAll(async () => {
  // 127.0.0.1 is this test's "proxy": its X-Forwarded-Proto is believed; 127.0.0.2 and the rest are not.
  server = await startServer({ LEAF_ADMIN_TOKEN: TOKEN, LEAF_TRUSTED_PROXIES: '127.0.0.1' });
  port = Number(new URL(server.url).port);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request with exactly these headers (Host and Origin included, which fetch will not set), from `from`. */
function send(method: string, target: string, headers: Record<string, string>, body?: unknown, from = '127.0.0.1') {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<Reply>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: target,
        localAddress: from,
        agent: false,
        headers: {
          host: `127.0.0.1:${port}`,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          recordAnswer({
            method,
            target,
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: text,
          });
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function session(headers: Record<string, string> = {}, from?: string): Promise<string> {
  const r = await send('POST', '/api/auth/login', headers, { token: TOKEN }, from);
  expect(r.status, r.body).toBe(200);
  return String(r.headers['set-cookie']?.[0]?.split(';')[0]);
}

async function tagExists(bizTag: string): Promise<boolean> {
  return (await server.api(`/api/admin/tags/${bizTag}`)).status === 200;
}

describe('a console write with the session cookie', () => {
  const own = () => `http://127.0.0.1:${port}`;
  const foreign: Array<[string, Record<string, string>]> = [
    ['Origin of a sibling subdomain', { origin: 'http://evil.example' }],
    ['Origin of another port', { origin: 'http://127.0.0.1:1' }],
    ['Origin null', { origin: 'null' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site', origin: 'http://evil.example' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: none (no console page sends a write so)', { 'sec-fetch-site': 'none' }],
    // Issue 38: any Authorization header used to switch the check off, though only a valid Bearer token is a
    // credential — a browser behind a Basic-auth proxy adds Basic by itself, with the cookie beside it.
    ['Authorization: Basic beside the cookie', { authorization: 'Basic dXNlcjpwYXNz', origin: 'https://evil.example' }],
    ['an empty Authorization beside the cookie', { authorization: '', origin: 'https://evil.example' }],
    ['Authorization: Bearer (no token) beside the cookie', { authorization: 'Bearer', origin: 'https://evil.example' }],
  ];

  it.each(foreign)('from a page elsewhere (%s) is refused with 403 JSON and changes nothing', async (_, from) => {
    const cookie = await session();
    const bizTag = `origin-${Math.random().toString(36).slice(2, 8)}`;
    const r = await send('POST', '/api/admin/tags', { cookie, ...from }, { bizTag, step: 10 });
    expect(r.status, r.body).toBe(403);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(r.body).error.code).toBe('forbidden_origin');
    expect(await tagExists(bizTag)).toBe(false);
    // PATCH and DELETE the same way: the row stays as it was.
    const before = (await server.api('/api/admin/tags/demo')).status;
    expect(before).toBe(200);
    const patch = await send('PATCH', '/api/admin/tags/demo', { cookie, ...from }, { description: 'changed' });
    expect(patch.status).toBe(403);
    const del = await send('DELETE', '/api/admin/tags/demo', { cookie, ...from }, { confirm: 'demo' });
    expect(del.status, del.body).toBe(403);
    expect((await (await server.api('/api/admin/tags/demo')).json()).tag?.description ?? '').not.toBe('changed');
  });

  it('from the console itself (same-origin, or its own Origin) is accepted', async () => {
    const cookie = await session();
    const ways: Array<Record<string, string>> = [{ 'sec-fetch-site': 'same-origin' }, { origin: own() }, {}];
    for (const [i, from] of ways.entries()) {
      const r = await send('POST', '/api/admin/tags', { cookie, ...from }, { bizTag: `own-origin-${i}`, step: 10 });
      expect(r.status, `${JSON.stringify(from)}: ${r.body}`).toBe(201);
    }
  });

  it('a Bearer call is not a browser write: any Origin goes on as before', async () => {
    const r = await send(
      'POST',
      '/api/admin/tags',
      { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { bizTag: 'bearer-from-anywhere', step: 10 },
    );
    expect(r.status, r.body).toBe(201);
  });

  it('a wrong Bearer token is no credential: from elsewhere it is refused as a foreign write, never a 201', async () => {
    const cookie = await session();
    const r = await send(
      'POST',
      '/api/admin/tags',
      { cookie, authorization: 'Bearer not-the-token', origin: 'http://evil.example' },
      { bizTag: 'wrong-bearer-with-cookie', step: 10 },
    );
    expect(r.status, r.body).toBe(401); // judged alone: the cookie does not rescue it
    expect(await tagExists('wrong-bearer-with-cookie')).toBe(false);
  });

  it('logout from a sibling subdomain with Basic credentials is refused, and the session lives on', async () => {
    const cookie = await session();
    const r = await send('POST', '/api/auth/logout', {
      cookie,
      'sec-fetch-site': 'same-site',
      authorization: 'Basic dXNlcjpwYXNz',
    });
    expect(r.status, r.body).toBe(403);
    const probe = await send('GET', '/api/auth/session', { cookie });
    expect(JSON.parse(probe.body)).toEqual({ authenticated: true });
  });

  it('login and logout from a page elsewhere are refused too', async () => {
    const login = await send('POST', '/api/auth/login', { 'sec-fetch-site': 'cross-site' }, { token: TOKEN });
    expect(login.status).toBe(403);
    expect(login.headers['set-cookie']).toBeUndefined();
    const cookie = await session();
    const logout = await send('POST', '/api/auth/logout', { cookie, origin: 'http://evil.example' });
    expect(logout.status).toBe(403);
    expect(logout.headers['set-cookie']).toBeUndefined();
  });
});

describe('the session cookie over TLS', () => {
  it('is Secure when a trusted proxy says X-Forwarded-Proto: https', async () => {
    expect(await session({ 'x-forwarded-proto': 'https' })).toBeTruthy();
    const r = await send('POST', '/api/auth/login', { 'x-forwarded-proto': 'https' }, { token: TOKEN });
    expect(String(r.headers['set-cookie'])).toMatch(/; Secure/);
  });

  it('is not Secure over plain HTTP, nor when an untrusted client claims https', async () => {
    const plain = await send('POST', '/api/auth/login', {}, { token: TOKEN });
    expect(String(plain.headers['set-cookie'])).not.toMatch(/Secure/);
    const claimed = await send(
      'POST',
      '/api/auth/login',
      { 'x-forwarded-proto': 'https' },
      { token: TOKEN },
      '127.0.0.2',
    );
    expect(claimed.status, claimed.body).toBe(200);
    expect(String(claimed.headers['set-cookie'])).not.toMatch(/Secure/);
  });
});
