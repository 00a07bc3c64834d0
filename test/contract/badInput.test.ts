/**
 * Bad-input sweep: well over a thousand malformed requests, generated from tables, to every route — the ID routes
 * on both lanes (fast lane and LEAF_FAST_LANE=off), the admin and auth routes and metrics — with odd tags, unicode,
 * broken percent-encoding, SQL fragments, odd counts, oversized bodies, bad JSON, wrong content types, wrong
 * methods, duplicated parameters, very long URLs, with and without valid credentials.
 *
 * Every answer must be a 4xx with `{"error":{"code","message"}}` JSON (HEAD: status only), never a 5xx, never a
 * stack trace or an HTML page; afterwards leaf_alloc (and the tombstones) must be byte-for-byte what it was, read
 * straight from each server's SQLite file. Requests go over raw TCP, so nothing is normalised on the way.
 *
 * What Node's HTTP parser and Next would answer on their own (bare 400/431, dropped CONNECT, HTML 404, empty 405,
 * a body that is waited for) is covered separately: server.ts and the catch-all route turn each into a JSON error.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, type Case, build, raw } from '../support/rawHttp';
import { type ServerProcess, startServer } from '../support/serverProcess';

const TOKEN = 'badinput-admin-token-0123456789abcdef';

const LEAK = /<!doctype|<html|\bat [\w$.<>]+ \(|node_modules|\/work\/|webpack|\.tsx?:\d+|\bError: /i;

/** What every answer must be. Returns a description of what is wrong, or null. */
function judge(c: Case, a: Answer): string | null {
  if (a.timedOut) return `no answer within the client timeout (${a.ms} ms)`;
  if (a.noResponse) return 'connection closed without a response';
  if (a.status >= 500) return `status ${a.status}: ${a.body.slice(0, 200)}`;
  if (a.status < 400) return `status ${a.status} (not a rejection): ${a.body.slice(0, 200)}`;
  if (c.status !== undefined && !c.status.includes(a.status))
    return `status ${a.status}, expected ${c.status.join('/')}: ${a.body.slice(0, 200)}`;
  if (LEAK.test(a.body)) return `body leaks internals or is HTML: ${a.body.slice(0, 200)}`;
  if (a.body.includes(TOKEN)) return 'body echoes the admin token';
  if (c.method === 'HEAD') return null;
  if (!/^application\/json/.test(a.headers['content-type'] ?? ''))
    return `content-type "${a.headers['content-type'] ?? ''}", body ${a.body.slice(0, 120)}`;
  let parsed: { error?: { code?: unknown; message?: unknown } };
  try {
    parsed = JSON.parse(a.body) as typeof parsed;
  } catch {
    return `body is not JSON: ${a.body.slice(0, 200)}`;
  }
  if (typeof parsed.error?.code !== 'string' || typeof parsed.error.message !== 'string')
    return `not {"error":{"code","message"}}: ${a.body.slice(0, 200)}`;
  if (c.codes !== undefined && !c.codes.includes(parsed.error.code))
    return `code ${parsed.error.code}, expected ${c.codes.join('/')} (status ${a.status})`;
  return null;
}

/** For paths Next's router decides (dot segments, empty or extra segments): a redirect or a 404, never a 5xx. */
function judgeFramework(_c: Case, a: Answer): string | null {
  if (a.timedOut) return `no answer within the client timeout (${a.ms} ms)`;
  if (a.noResponse) return 'connection closed without a response';
  if (a.status !== 308 && a.status !== 404 && !(a.status >= 400 && a.status < 500))
    return `status ${a.status}: ${a.body.slice(0, 200)}`;
  if (a.body.includes(TOKEN)) return 'body echoes the admin token';
  return null;
}

/** Runs `cases` against `port`, `concurrency` at a time; returns one line per case that broke the contract. */
async function sweep(
  port: number,
  cases: Case[],
  concurrency = 8,
  check: (c: Case, a: Answer) => string | null = judge,
): Promise<string[]> {
  const failures: string[] = [];
  const queue = cases.values();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (const c of queue) {
        const a = await raw(port, build(c, TOKEN));
        const problem = check(c, a);
        if (problem !== null)
          failures.push(
            `${c.name}: ${c.method} ${c.target.slice(0, 100)}${c.target.length > 100 ? '…' : ''} → ${problem}`,
          );
      }
    }),
  );
  return failures.sort();
}

// ---------------------------------------------------------------------------------------------------- tables

const long = (n: number) => 'x'.repeat(n);
const TAG_SHAPE = /^[A-Za-z0-9_.:-]{1,128}$/;
/** The tag a path segment names once percent-decoded, or null when it does not decode to a valid tag. */
function decodedTag(segment: string): string | null {
  try {
    const t = decodeURIComponent(segment);
    return TAG_SHAPE.test(t) ? t : null;
  } catch {
    return null;
  }
}

/** Every route's path shape. A path of another shape, or with a dot or empty segment, is Next's router's call. */
const ROUTE_SHAPES = [
  /^\/api\/id\/segment\/[^/]+$/,
  /^\/api\/id\/formatted\/[^/]+$/,
  /^\/api\/segment\/get\/[^/]+$/,
  /^\/api\/snowflake\/get\/[^/]+$/,
  /^\/api\/id\/snowflake(\/[^/]+)?$/,
  /^\/api\/health$/,
  /^\/api\/admin\/tags(\/[^/]+)?$/,
  /^\/api\/admin\/formats(\/[^/]+)?$/,
  /^\/api\/admin\/workers$/,
  /^\/api\/auth\/(login|logout|session)$/,
  /^\/api\/metrics$/,
];
function nextRouted(target: string): boolean {
  const [p = ''] = target.split('?');
  return (
    p
      .split('/')
      .slice(1)
      .some((seg) => seg === '' || /^(\.|%2e){1,2}$/i.test(seg)) || !ROUTE_SHAPES.some((re) => re.test(p))
  );
}

/** Path segments (as sent) that are not a usable tag: invalid (400), or valid but absent (404). */
const BAD_TAGS: string[] = [
  // broken or odd percent-encoding
  '%',
  '%%',
  '%zz',
  '%2',
  'demo%',
  'demo%2',
  '%E0%A4%A',
  '%C0%AF',
  '%C0%80',
  '%ED%A0%80',
  '%FF',
  '%FE%FF',
  '%u0041',
  '%%32%33',
  '%25',
  '%252F',
  // control characters, separators, traversal (encoded: raw ones are the parser's business)
  '%00',
  'a%00b',
  '%20',
  'bad%20tag',
  '%09',
  'demo%0A',
  '%0D%0AX-Injected:%201',
  '%2F',
  'demo%2F',
  'demo%2Fx',
  '%2e%2e',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e%2f%2e%2e%2f',
  'demo%5C',
  'demo%23frag',
  'demo%3Fcount=1',
  'demo%26count=5',
  // unicode, encoded
  '%E6%97%A5%E6%9C%AC',
  'caf%C3%A9',
  '%F0%9F%98%80',
  '%EF%BC%A4emo',
  'd%CC%81emo',
  '%E2%80%8Bdemo',
  'demo%E2%80%AE',
  // SQL and script fragments
  "demo'",
  "demo'--",
  "'%20OR%201=1--",
  "demo';DROP%20TABLE%20leaf_alloc;--",
  'demo%27%20OR%20%271%27=%271',
  '1;SELECT%20SLEEP(5)',
  'demo%22',
  '%3Cscript%3Ealert(1)%3C%2Fscript%3E',
  '$%7Bjndi:ldap:x%7D',
  '%7B%7D',
  'demo,x',
  'demo!',
  'demo$',
  'demo*',
  'demo+x',
  'demo@x',
  'demo~',
  'demo(1)',
  'demo=1',
  'demo;x',
  // length
  long(129),
  long(1_000),
  long(4_000),
  // valid but absent (case matters, lookalikes, prototype names)
  'DEMO',
  'Demo',
  'demo.',
  '.demo',
  'demo-',
  'nope',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'NULL',
  'undefined',
  'a:b',
  '..',
  '.',
  '-',
  long(128),
];

/** Segments containing a path separator: no such route. */
const SLASHED_TAGS = ['demo/', 'demo/x', '/demo', 'demo//', 'demo/..'];

/** Query strings with a bad `count` (or a bad repeat of it). */
const BAD_COUNT_QUERIES: string[] = [
  ...[
    '',
    '0',
    '-1',
    '-0',
    '+1',
    '%2B1',
    ' 1'.replace(' ', '%20'),
    '1%20',
    '1.0',
    '1.5',
    '.5',
    '1.',
    '1e3',
    '1E3',
    '1e-3',
    '0x10',
    '0X1F',
    '0b1',
    '0o7',
    '010',
    '00',
    '01',
    '10001',
    '99999',
    '100000',
    '1' + '0'.repeat(30),
    '9007199254740993',
    'NaN',
    'Infinity',
    '-Infinity',
    'null',
    'undefined',
    'true',
    'false',
    '[]',
    '[1]',
    '%5B1%5D',
    '{}',
    'abc',
    '1a',
    'a1',
    '1%00',
    '%EF%BC%91',
    '%D9%A3',
    '1,2',
    '1%2C2',
    '1;2',
    '1_000',
    "1'",
    "1'%20OR%20'1'='1",
  ].map((v) => `count=${v}`),
  'count',
  'count=1&count=1',
  'count=1&count=2',
  'count=&count=1',
  'count=1&count',
  'count=5%26count=6',
  'count=5&count=5&count=5',
  'x=1&count=0',
  `count=abc&${'p=1&'.repeat(2_500)}`,
  `${'p=1&'.repeat(2_500)}count=-1`,
];

/** Snowflake IDs the decoder must refuse. */
const BAD_SNOWFLAKE_IDS = [
  'abc',
  '-1',
  '+1',
  '%2B1',
  '1.5',
  '1e5',
  '0x1',
  '%201',
  '%31',
  '1%00',
  '9223372036854775808',
  '18446744073709551615',
  '99999999999999999999',
  '00000000000000000001',
  '%EF%BC%91',
  'NaN',
  'null',
  '0b1',
  '1_0',
  long(5_000),
  "1'%20OR%20'1'='1",
  '1;',
  '%E0%A4%A',
];

const ID_ROUTES_GET = [
  '/api/id/segment/demo',
  '/api/id/formatted/demo',
  '/api/id/segment/demo/range?count=5',
  '/api/segment/get/demo',
  '/api/id/snowflake',
  '/api/id/snowflake/123',
  '/api/snowflake/get/demo',
  '/api/health',
];

function idRouteCases(): Case[] {
  const cases: Case[] = [];
  for (const t of BAD_TAGS) {
    cases.push({
      name: 'segment tag',
      method: 'GET',
      target: `/api/id/segment/${t}`,
      codes: ['invalid_tag', 'tag_not_found'],
    });
    cases.push({
      name: 'leaf segment tag',
      method: 'GET',
      target: `/api/segment/get/${t}`,
      codes: ['invalid_tag', 'tag_not_found'],
    });
    cases.push({
      name: 'segment tag + count',
      method: 'GET',
      target: `/api/id/segment/${t}?count=3`,
      codes: ['invalid_tag', 'tag_not_found'],
    });
    cases.push({
      name: 'range lease tag',
      method: 'GET',
      target: `/api/id/segment/${t}/range?count=3`,
      codes: ['invalid_tag', 'tag_not_found'],
    });
    cases.push({
      name: 'formatted tag',
      method: 'GET',
      target: `/api/id/formatted/${t}`,
      codes: ['invalid_tag', 'tag_not_found'],
    });
    cases.push({
      name: 'formatted tag + count',
      method: 'GET',
      target: `/api/id/formatted/${t}?count=3`,
      codes: ['invalid_tag', 'tag_not_found'],
    });
  }
  // The snowflake key is ignored, so only keys that fail the tag check are bad input there.
  for (const t of BAD_TAGS.filter((t) => decodedTag(t) === null)) {
    cases.push({
      name: 'leaf snowflake key',
      method: 'GET',
      target: `/api/snowflake/get/${t}`,
      codes: ['invalid_tag'],
    });
  }
  for (const t of SLASHED_TAGS) {
    for (const prefix of [
      '/api/id/segment/',
      '/api/id/formatted/',
      '/api/segment/get/',
      '/api/snowflake/get/',
      '/api/id/snowflake/',
    ]) {
      cases.push({
        name: 'slashed path',
        method: 'GET',
        target: `${prefix}${t}`,
        status: [400, 404],
        codes: ['route_not_found', 'invalid_id', 'invalid_tag'],
      });
    }
  }
  for (const p of [
    '/api/id/segment/',
    '/api/id/formatted/',
    '/api/id/formatted',
    '/api/segment/get/',
    '/api/snowflake/get/',
    '/api/id/snowflake/',
    '/api/id',
    '/api/id/',
    '/api/id/nope',
    '/api/segment',
    '/api/snowflake/x',
  ]) {
    cases.push({
      name: 'empty or unknown ID path',
      method: 'GET',
      target: p,
      status: [404],
      codes: ['route_not_found'],
    });
  }
  for (const q of BAD_COUNT_QUERIES) {
    cases.push({ name: 'segment count', method: 'GET', target: `/api/id/segment/demo?${q}`, codes: ['invalid_count'] });
    // 10001..100000 are fine leases; every other bad count is bad here too.
    if (!['count=10001', 'count=99999', 'count=100000'].includes(q)) {
      cases.push({
        name: 'range lease count',
        method: 'GET',
        target: `/api/id/segment/demo/range?${q}`,
        codes: ['invalid_count'],
      });
    }
    cases.push({ name: 'snowflake count', method: 'GET', target: `/api/id/snowflake?${q}`, codes: ['invalid_count'] });
    // The count is read before the formatted tag is looked up: bad on any tag.
    cases.push({
      name: 'formatted count',
      method: 'GET',
      target: `/api/id/formatted/demo?${q}`,
      codes: ['invalid_count'],
    });
    cases.push({
      name: 'leaf segment count',
      method: 'GET',
      target: `/api/segment/get/demo?${q}`,
      codes: ['invalid_count', 'invalid_request'],
    });
    cases.push({
      name: 'leaf snowflake count',
      method: 'GET',
      target: `/api/snowflake/get/demo?${q}`,
      codes: ['invalid_count', 'invalid_request'],
    });
  }
  for (const q of ['count=1', 'count=5', 'count=10000']) {
    cases.push({
      name: 'leaf route with a batch',
      method: 'GET',
      target: `/api/segment/get/demo?${q}`,
      codes: ['invalid_request'],
    });
    cases.push({
      name: 'leaf route with a batch',
      method: 'GET',
      target: `/api/snowflake/get/demo?${q}`,
      codes: ['invalid_request'],
    });
  }
  // (proxy.ts answers malformed percent-encoding with invalid_tag on the Next lane.)
  for (const id of BAD_SNOWFLAKE_IDS)
    cases.push({
      name: 'snowflake decode',
      method: 'GET',
      target: `/api/id/snowflake/${id}`,
      codes: ['invalid_id', 'invalid_tag'],
    });
  for (const route of ID_ROUTES_GET) {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'HEAD']) {
      // HEAD /api/health is answered (load balancers send it); on every other route it would spend IDs.
      if (method === 'HEAD' && route === '/api/health') continue;
      cases.push({ name: 'ID route method', method, target: route, status: [405], codes: ['method_not_allowed'] });
    }
    cases.push({
      name: 'ID route POST with JSON',
      method: 'POST',
      target: route,
      body: '{"count":5}',
      headers: [['Content-Type', 'application/json']],
      status: [405],
    });
    // Refused before any route sees it: the declared size is over every limit.
    cases.push({
      name: 'ID route POST 20 KiB',
      method: 'POST',
      target: route,
      body: long(20_000),
      status: [413],
      codes: ['payload_too_large'],
    });
  }
  cases.push({
    name: 'long path (12 KB)',
    method: 'GET',
    target: `/api/id/segment/${long(12_000)}`,
    codes: ['invalid_tag'],
  });
  cases.push({
    name: 'long leaf path (12 KB)',
    method: 'GET',
    target: `/api/segment/get/${'%41'.repeat(4_000)}`,
    codes: ['invalid_tag'],
  });
  cases.push({
    name: 'long snowflake id (12 KB)',
    method: 'GET',
    target: `/api/id/snowflake/${'9'.repeat(12_000)}`,
    codes: ['invalid_id'],
  });
  cases.push({
    name: 'long query (12 KB)',
    method: 'GET',
    target: `/api/id/segment/demo?count=0&${'q'.repeat(12_000)}`,
    codes: ['invalid_count'],
  });
  for (const q of ['count=10000001', 'count=99999999', 'count=100000000']) {
    cases.push({
      name: 'range lease over 10,000,000',
      method: 'GET',
      target: `/api/id/segment/demo/range?${q}`,
      codes: ['invalid_count'],
    });
  }
  return cases;
}

/** Credentials that must not open the admin API. */
function badCredentials(): Array<{ name: string; headers: Array<[string, string]> }> {
  const forged = (key: string, expiresAt: number) =>
    `${expiresAt}.${createHmac('sha256', key).update(`leaf-session:${expiresAt}`).digest('base64url')}`;
  const soon = Date.now() + 3_600_000;
  return [
    { name: 'none', headers: [] },
    { name: 'wrong bearer', headers: [['Authorization', 'Bearer wrong']] },
    { name: 'empty bearer', headers: [['Authorization', 'Bearer']] },
    { name: 'bearer space', headers: [['Authorization', 'Bearer ']] },
    { name: 'token without scheme', headers: [['Authorization', TOKEN]] },
    { name: 'basic', headers: [['Authorization', `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}`]] },
    { name: 'other scheme', headers: [['Authorization', `Token ${TOKEN}`]] },
    { name: 'token + suffix', headers: [['Authorization', `Bearer ${TOKEN}x`]] },
    { name: 'token prefix', headers: [['Authorization', `Bearer ${TOKEN.slice(0, -1)}`]] },
    { name: 'token upper-cased', headers: [['Authorization', `Bearer ${TOKEN.toUpperCase()}`]] },
    { name: 'quoted token', headers: [['Authorization', `Bearer "${TOKEN}"`]] },
    { name: 'two tokens in one header', headers: [['Authorization', `Bearer wrong, Bearer ${TOKEN}`]] },
    { name: 'garbage cookie', headers: [['Cookie', 'leaf_session=garbage']] },
    { name: 'empty cookie', headers: [['Cookie', 'leaf_session=']] },
    { name: 'expired session', headers: [['Cookie', `leaf_session=${forged(TOKEN, Date.now() - 1_000)}`]] },
    { name: 'session signed with another key', headers: [['Cookie', `leaf_session=${forged('another-key', soon)}`]] },
    {
      name: 'session with a huge expiry',
      headers: [['Cookie', `leaf_session=99999999999999999999.${'A'.repeat(43)}`]],
    },
    { name: 'session cookie under another name', headers: [['Cookie', `LEAF_SESSION=${forged(TOKEN, soon)}`]] },
    { name: 'token as cookie', headers: [['Cookie', `leaf_session=${TOKEN}`]] },
  ];
}

/** Requests that would succeed with a valid credential (so a hole in the check would show in leaf_alloc). */
const GUARDED: Array<Omit<Case, 'name'>> = [
  { method: 'GET', target: '/api/admin/tags' },
  {
    method: 'POST',
    target: '/api/admin/tags',
    body: '{"bizTag":"intruder","step":10}',
    headers: [['Content-Type', 'application/json']],
  },
  { method: 'GET', target: '/api/admin/tags/demo' },
  {
    method: 'PATCH',
    target: '/api/admin/tags/demo',
    body: '{"step":7,"maxId":"5000000"}',
    headers: [['Content-Type', 'application/json']],
  },
  {
    method: 'DELETE',
    target: '/api/admin/tags/sweep',
    body: '{"confirm":"sweep"}',
    headers: [['Content-Type', 'application/json']],
  },
  { method: 'GET', target: '/api/admin/workers' },
  // A switch to leaf would raise every tag's max_id by one: a hole in the check would show in leaf_alloc.
  {
    method: 'PUT',
    target: '/api/admin/semantics',
    body: '{"semantics":"leaf"}',
    headers: [['Content-Type', 'application/json']],
  },
  { method: 'GET', target: '/api/metrics' },
  { method: 'HEAD', target: '/api/admin/tags' },
  // An access token created through a hole would show in leaf_token.
  { method: 'GET', target: '/api/admin/tokens' },
  {
    method: 'POST',
    target: '/api/admin/tokens',
    body: '{"name":"intruder","tags":["demo"]}',
    headers: [['Content-Type', 'application/json']],
  },
  { method: 'DELETE', target: '/api/admin/tokens/AAAAAAAAAAAA' },
  // A formatted tag created, edited or deleted through a hole would show in leaf_format.
  { method: 'GET', target: '/api/admin/formats' },
  {
    method: 'POST',
    target: '/api/admin/formats',
    body: '{"bizTag":"intruder","pattern":"I{seq:4}","resetPeriod":"never","timeZone":"UTC","step":10}',
    headers: [['Content-Type', 'application/json']],
  },
  {
    method: 'PATCH',
    target: '/api/admin/formats/demo',
    body: '{"step":7}',
    headers: [['Content-Type', 'application/json']],
  },
  { method: 'DELETE', target: '/api/admin/formats/demo' },
];

const INVALID_JSON = [
  '{',
  '}',
  '{"bizTag":',
  'not json',
  "{'bizTag':'x','step':5}",
  '{"bizTag":"x","step":5,}',
  '{"bizTag":"x" "step":5}',
  '\uFEFF{',
  '{"a":1}garbage',
  '\u0000',
  '[',
  '{"bizTag":"x","step":5}\n{"bizTag":"y","step":5}',
  'NaN',
  'undefined',
  '{"step":NaN}',
  '{"step":Infinity}',
  '{"step":0x10}',
  '{"step":+5}',
  '{"step":05}',
  '{"step":.5}',
  '{"description":"\\x41"}',
  '{"description":"\\u12"}',
  '/*c*/{}',
  '{"a":"b"',
  '"unterminated',
  '{"step":1e}',
  `{"d":"${'\\'.repeat(3)}"}`,
];

/** JSON that parses but is not a valid create / update / delete / login body. */
const CREATE_BODIES: Array<[body: string, codes: string[]]> = [
  ['{}', ['validation_failed']],
  ['[]', ['validation_failed']],
  ['null', ['validation_failed']],
  ['true', ['validation_failed']],
  ['0', ['validation_failed']],
  ['"str"', ['validation_failed']],
  ['[{"bizTag":"x","step":5}]', ['validation_failed']],
  [`${'['.repeat(5_000)}${']'.repeat(5_000)}`, ['validation_failed']],
  [`${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}`, ['validation_failed']],
  ['{"bizTag":"x"}', ['validation_failed']],
  ['{"step":5}', ['validation_failed']],
  ...['0', '-1', '1.5', '"5"', '1e7', '1000001', '1e400', '-1e400', 'null', 'true', '[5]', '{"$gt":0}', '"1e3"'].map(
    (s): [string, string[]] => [`{"bizTag":"x","step":${s}}`, ['validation_failed']],
  ),
  ...[
    '""',
    '"x y"',
    `"${long(129)}"`,
    '5',
    'null',
    '["x"]',
    '{"x":1}',
    '"x\\u0000"',
    '"日本"',
    '"x;DROP TABLE leaf_alloc"',
    '"x\'--"',
    '"../x"',
    '"x/y"',
    '"%41"',
    '" x"',
    '"x\\n"',
  ].map((s): [string, string[]] => [`{"bizTag":${s},"step":5}`, ['validation_failed']]),
  ...[
    '"abc"',
    '"-1"',
    '"0"',
    '0',
    '-5',
    '"1.5"',
    '1.5',
    '"1e3"',
    '"0x10"',
    '"9223372036854775808"',
    '"18446744073709551616"',
    '9007199254740993',
    '"99999999999999999999"',
    'true',
    'null',
    '[1]',
    '" "',
    '""',
  ].map((s): [string, string[]] => [`{"bizTag":"x","step":5,"maxId":${s}}`, ['validation_failed']]),
  ...['5', '["a"]', '{"a":1}', 'true', `"${long(257)}"`].map((s): [string, string[]] => [
    `{"bizTag":"x","step":5,"description":${s}}`,
    ['validation_failed'],
  ]),
  ['{"bizTag":"x","step":5,"extra":1}', ['validation_failed']],
  ['{"bizTag":"x","step":5,"__proto__":{"admin":true}}', ['validation_failed']],
  ['{"bizTag":"x","step":5,"constructor":{"prototype":{"polluted":1}}}', ['validation_failed']],
  ['{"bizTag":"x","step":5,"step":-1}', ['validation_failed']],
  ['{"bizTag":"x","bizTag":"y z","step":5}', ['validation_failed']],
  ['{"bizTag":"demo","step":5}', ['tag_exists']],
  ['{"bizTag":"sweep","step":5,"maxId":"1"}', ['tag_exists']],
  ['{"bizTag":"gone","step":5,"maxId":"10"}', ['max_id_below_tombstone']],
];

const PATCH_BODIES: Array<[body: string, codes: string[]]> = [
  ['{}', ['validation_failed']],
  ['[]', ['validation_failed']],
  ['null', ['validation_failed']],
  ['"x"', ['validation_failed']],
  ['7', ['validation_failed']],
  ...['0', '-1', '1.5', '"10"', '1000001', '1e400', 'null', 'true', '[10]'].map((s): [string, string[]] => [
    `{"step":${s}}`,
    ['validation_failed'],
  ]),
  ...['"0"', '-1', '"-1"', '"1e3"', '"0x10"', '"9223372036854775808"', '"abc"', '1.5', 'null', 'true'].map(
    (s): [string, string[]] => [`{"maxId":${s}}`, ['validation_failed']],
  ),
  ['{"maxId":"999"}', ['max_id_lowered']],
  ['{"maxId":1}', ['max_id_lowered']],
  ['{"maxId":"999","step":20,"description":"should not apply"}', ['max_id_lowered']],
  ['{"step":20,"maxId":"abc"}', ['validation_failed']],
  ...['"java"', '"LEAF"', '""', '5', 'true', '["leaf"]', '{"x":1}'].map((s): [string, string[]] => [
    `{"semantics":${s}}`,
    ['validation_failed'],
  ]),
  ['{"maxId":"999","semantics":"leaf"}', ['max_id_lowered']],
  ['{"description":5}', ['validation_failed']],
  [`{"description":"${long(257)}"}`, ['validation_failed']],
  ['{"description":["a"]}', ['validation_failed']],
  ['{"bizTag":"renamed"}', ['validation_failed']],
  ['{"step":10,"bogus":1}', ['validation_failed']],
  ['{"__proto__":{"step":5}}', ['validation_failed']],
  ['{"step":10,"step":0}', ['validation_failed']],
];

const DELETE_BODIES: Array<[body: string | undefined, codes: string[]]> = [
  [undefined, ['validation_failed']],
  ['', ['validation_failed']],
  ['{}', ['validation_failed']],
  ['{"confirm":"SWEEP"}', ['confirmation_mismatch']],
  ['{"confirm":"sweep "}', ['confirmation_mismatch']],
  ['{"confirm":" sweep"}', ['confirmation_mismatch']],
  ['{"confirm":"swee"}', ['confirmation_mismatch']],
  ['{"confirm":"demo"}', ['confirmation_mismatch']],
  ['{"confirm":""}', ['confirmation_mismatch']],
  ['{"confirm":"sweep\\u0000"}', ['confirmation_mismatch']],
  ['{"confirm":5}', ['validation_failed']],
  ['{"confirm":null}', ['validation_failed']],
  ['{"confirm":["sweep"]}', ['validation_failed']],
  ['{"confirm":{"$ne":""}}', ['validation_failed']],
  ['{"confirm":"sweep","extra":1}', ['validation_failed']],
  ['[]', ['validation_failed']],
];

const LOGIN_BODIES: Array<[body: string | undefined, codes: string[]]> = [
  [undefined, ['validation_failed']],
  ['{}', ['validation_failed']],
  ['{"token":""}', ['validation_failed']],
  ['{"token":5}', ['validation_failed']],
  ['{"token":null}', ['validation_failed']],
  [`{"token":"${long(513)}"}`, ['validation_failed']],
  ['{"token":["x"]}', ['validation_failed']],
  [`{"token":"${TOKEN}","extra":1}`, ['validation_failed']],
  ['{"token":"wrong"}', ['unauthorized']],
  [`{"token":"${TOKEN.toUpperCase()}"}`, ['unauthorized']],
  [`{"token":" ${TOKEN}"}`, ['unauthorized']],
  [`{"token":"${TOKEN}\\u0000"}`, ['unauthorized']],
  ['[]', ['validation_failed']],
  ['"token"', ['validation_failed']],
];

const JSON_CT: Array<[string, string]> = [['Content-Type', 'application/json']];

function adminCases(): Case[] {
  const cases: Case[] = [];
  // Credentials.
  for (const cred of badCredentials()) {
    for (const g of GUARDED)
      cases.push({
        name: `no valid credential (${cred.name})`,
        ...g,
        headers: [...(g.headers ?? []), ...cred.headers],
        status: [401],
      });
  }
  // Odd tags on the tag routes, with a valid credential.
  for (const t of BAD_TAGS) {
    const valid = decodedTag(t);
    const codes = ['invalid_tag', 'tag_not_found'];
    cases.push({ name: 'admin GET odd tag', method: 'GET', target: `/api/admin/tags/${t}`, auth: true, codes });
    cases.push({
      name: 'admin PATCH odd tag',
      method: 'PATCH',
      target: `/api/admin/tags/${t}`,
      auth: true,
      headers: JSON_CT,
      body: '{"step":10}',
      codes,
    });
    // DELETE with the matching confirmation, so only the tag check stands between the request and a delete.
    const confirm = valid ?? 'x';
    cases.push({
      name: 'admin DELETE odd tag',
      method: 'DELETE',
      target: `/api/admin/tags/${t}`,
      auth: true,
      headers: JSON_CT,
      body: JSON.stringify({ confirm }),
      codes,
    });
  }
  // Bodies.
  for (const body of INVALID_JSON) {
    cases.push({
      name: 'create: invalid JSON',
      method: 'POST',
      target: '/api/admin/tags',
      auth: true,
      headers: JSON_CT,
      body,
      codes: ['invalid_request'],
    });
    cases.push({
      name: 'patch: invalid JSON',
      method: 'PATCH',
      target: '/api/admin/tags/sweep',
      auth: true,
      headers: JSON_CT,
      body,
      codes: ['invalid_request'],
    });
    cases.push({
      name: 'delete: invalid JSON',
      method: 'DELETE',
      target: '/api/admin/tags/sweep',
      auth: true,
      headers: JSON_CT,
      body,
      codes: ['invalid_request'],
    });
    cases.push({
      name: 'login: invalid JSON',
      method: 'POST',
      target: '/api/auth/login',
      headers: JSON_CT,
      body,
      codes: ['invalid_request'],
    });
  }
  for (const [body, codes] of CREATE_BODIES)
    cases.push({
      name: 'create: bad body',
      method: 'POST',
      target: '/api/admin/tags',
      auth: true,
      headers: JSON_CT,
      body,
      codes,
    });
  for (const [body, codes] of PATCH_BODIES)
    cases.push({
      name: 'patch: bad body',
      method: 'PATCH',
      target: '/api/admin/tags/sweep',
      auth: true,
      headers: JSON_CT,
      body,
      codes,
    });
  cases.push({
    name: 'patch: absent tag',
    method: 'PATCH',
    target: '/api/admin/tags/nope',
    auth: true,
    headers: JSON_CT,
    body: '{"step":10}',
    codes: ['tag_not_found'],
  });
  for (const [body, codes] of DELETE_BODIES)
    cases.push({
      name: 'delete: bad body',
      method: 'DELETE',
      target: '/api/admin/tags/sweep',
      auth: true,
      headers: JSON_CT,
      body,
      codes,
    });
  cases.push({
    name: 'delete: absent tag',
    method: 'DELETE',
    target: '/api/admin/tags/nope',
    auth: true,
    headers: JSON_CT,
    body: '{"confirm":"nope"}',
    codes: ['tag_not_found'],
  });
  cases.push({
    name: 'delete: deleted tag',
    method: 'DELETE',
    target: '/api/admin/tags/gone',
    auth: true,
    headers: JSON_CT,
    body: '{"confirm":"gone"}',
    codes: ['tag_not_found'],
  });
  for (const [body, codes] of LOGIN_BODIES)
    cases.push({ name: 'login: bad body', method: 'POST', target: '/api/auth/login', headers: JSON_CT, body, codes });
  // Oversized bodies (> 16 KiB), with Content-Length and chunked.
  const big = (n: number) => JSON.stringify({ description: long(n) });
  for (const [n, chunked] of [
    [16_385, false],
    [20_000, true],
    [1 << 20, false],
    [1 << 20, true],
  ] as const) {
    const extra = { body: big(n), chunked, codes: ['payload_too_large'], status: [413] };
    cases.push({
      name: `create: ${n} B body${chunked ? ' (chunked)' : ''}`,
      method: 'POST',
      target: '/api/admin/tags',
      auth: true,
      headers: JSON_CT,
      ...extra,
    });
    cases.push({
      name: `patch: ${n} B body${chunked ? ' (chunked)' : ''}`,
      method: 'PATCH',
      target: '/api/admin/tags/sweep',
      auth: true,
      headers: JSON_CT,
      ...extra,
    });
    cases.push({
      name: `delete: ${n} B body${chunked ? ' (chunked)' : ''}`,
      method: 'DELETE',
      target: '/api/admin/tags/sweep',
      auth: true,
      headers: JSON_CT,
      ...extra,
    });
    cases.push({
      name: `login: ${n} B body${chunked ? ' (chunked)' : ''}`,
      method: 'POST',
      target: '/api/auth/login',
      headers: JSON_CT,
      ...extra,
    });
  }
  // Oversized without a credential: the credential check answers first.
  cases.push({
    name: 'create: 1 MiB body, no credential',
    method: 'POST',
    target: '/api/admin/tags',
    headers: JSON_CT,
    body: big(1 << 20),
    status: [401, 413],
  });
  // Wrong content types, with bodies that are not JSON.
  const forms: Array<[string, string]> = [
    ['text/plain', 'bizTag=x&step=5'],
    ['application/x-www-form-urlencoded', 'bizTag=x&step=5'],
    ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="bizTag"\r\n\r\nx\r\n--b--\r\n'],
    ['application/xml', '<tag><bizTag>x</bizTag><step>5</step></tag>'],
    ['application/octet-stream', '\u0000\u0001\u0002'],
    ['application/json; charset=utf-16', '\u00ff\u00fe{\u0000}\u0000'],
    ['', '{bizTag:x}'],
  ];
  for (const [ct, body] of forms) {
    const headers: Array<[string, string]> = ct === '' ? [] : [['Content-Type', ct]];
    // Not JSON by its content type: 415; declared JSON that is not: 400.
    const codes = ct.startsWith('application/json') ? ['invalid_request'] : ['unsupported_media_type'];
    cases.push({
      name: `create: ${ct || 'no'} content type`,
      method: 'POST',
      target: '/api/admin/tags',
      auth: true,
      headers,
      body,
      codes,
    });
    cases.push({
      name: `patch: ${ct || 'no'} content type`,
      method: 'PATCH',
      target: '/api/admin/tags/sweep',
      auth: true,
      headers,
      body,
      codes,
    });
    cases.push({
      name: `login: ${ct || 'no'} content type`,
      method: 'POST',
      target: '/api/auth/login',
      headers,
      body,
      codes,
    });
  }
  // A JSON body sent with another content type is refused too (no form-encoded or text/plain side doors).
  cases.push({
    name: 'create: valid JSON as text/plain',
    method: 'POST',
    target: '/api/admin/tags',
    auth: true,
    headers: [['Content-Type', 'text/plain']],
    body: JSON.stringify({ bizTag: 'sneaky', step: 5 }),
    codes: ['unsupported_media_type'],
  });
  // The tag list's query: each bad parameter is a 400 naming it.
  for (const query of [
    'limit=0',
    'limit=501',
    'limit=-5',
    'limit=1e3',
    'offset=-1',
    'offset=x',
    'sort=size',
    'sort=--rate',
    'sort=',
    `q=${'q'.repeat(200)}`,
    'limit=%FF',
  ]) {
    cases.push({
      name: `list: ${query.slice(0, 20)}`,
      method: 'GET',
      target: `/api/admin/tags?${query}`,
      auth: true,
      codes: ['invalid_request'],
    });
  }
  // Wrong methods the routes answer themselves.
  for (const method of ['PUT', 'PATCH', 'DELETE'])
    cases.push({
      name: 'tags collection method',
      method,
      target: '/api/admin/tags',
      auth: true,
      status: [405],
      codes: ['method_not_allowed'],
    });
  for (const method of ['POST', 'PUT'])
    cases.push({
      name: 'tag method',
      method,
      target: '/api/admin/tags/sweep',
      auth: true,
      status: [405],
      codes: ['method_not_allowed'],
    });
  for (const method of ['POST', 'PATCH', 'DELETE'])
    cases.push({
      name: 'semantics method',
      method,
      target: '/api/admin/semantics',
      auth: true,
      status: [405],
      codes: ['method_not_allowed'],
    });
  // The fleet default: any bad body is refused before the switch (which would move every max_id).
  for (const body of [
    '{}',
    '[]',
    'null',
    '{"semantics":"java"}',
    '{"semantics":null}',
    '{"semantics":"leaf","x":1}',
    '{"semantics":["leaf"]}',
  ]) {
    cases.push({
      name: 'semantics: bad body',
      method: 'PUT',
      target: '/api/admin/semantics',
      auth: true,
      headers: JSON_CT,
      body,
      codes: ['validation_failed'],
    });
  }
  // Access tokens: bad bodies, odd ids, wrong methods.
  for (const body of [
    '{}',
    '[]',
    'null',
    '{"name":"x"}',
    '{"tags":["demo"]}',
    '{"name":"","tags":["demo"]}',
    '{"name":"x","tags":[]}',
    '{"name":"x","tags":"demo"}',
    '{"name":"x","tags":["bad tag"]}',
    '{"name":"x","tags":[5]}',
    `{"name":"${long(129)}","tags":["demo"]}`,
    '{"name":"x","tags":["demo"],"extra":1}',
    `{"name":"x","tags":${JSON.stringify(Array.from({ length: 101 }, (_, i) => `t${i}`))}}`,
    '{"name":5,"tags":["demo"]}',
  ]) {
    cases.push({
      name: 'token create: bad body',
      method: 'POST',
      target: '/api/admin/tokens',
      auth: true,
      headers: JSON_CT,
      body,
      codes: ['validation_failed'],
    });
  }
  for (const body of INVALID_JSON)
    cases.push({
      name: 'token create: invalid JSON',
      method: 'POST',
      target: '/api/admin/tokens',
      auth: true,
      headers: JSON_CT,
      body,
      codes: ['invalid_request'],
    });
  for (const id of ['AAAAAAAAAAAA', 'nope', '%00', 'x'.repeat(300), '..%2F', '%E0%A4%A', "a'--"]) {
    cases.push({
      name: 'token revoke: unknown id',
      method: 'DELETE',
      target: `/api/admin/tokens/${id}`,
      auth: true,
      status: [400, 404],
    });
  }
  for (const method of ['PUT', 'PATCH', 'DELETE'])
    cases.push({
      name: 'tokens collection method',
      method,
      target: '/api/admin/tokens',
      auth: true,
      status: [405],
      codes: ['method_not_allowed'],
    });
  for (const method of ['GET', 'POST', 'PATCH'])
    cases.push({
      name: 'token method',
      method,
      target: '/api/admin/tokens/AAAAAAAAAAAA',
      auth: true,
      status: [405],
      codes: ['method_not_allowed'],
    });
  cases.push({
    name: 'login method',
    method: 'GET',
    target: '/api/auth/login',
    status: [405],
    codes: ['method_not_allowed'],
  });
  // Long URLs under the header limit.
  cases.push({
    name: 'admin long tag (12 KB)',
    method: 'GET',
    target: `/api/admin/tags/${long(12_000)}`,
    auth: true,
    codes: ['invalid_tag'],
  });
  cases.push({
    name: 'admin long query, no credential',
    method: 'GET',
    target: `/api/admin/tags?${'a=1&'.repeat(3_000)}`,
    status: [401],
  });
  cases.push({
    name: 'metrics long query, no credential',
    method: 'GET',
    target: `/api/metrics?${'a=1&'.repeat(3_000)}`,
    status: [401],
  });
  return cases;
}

/** What Node's HTTP parser rejects before any of our code runs. */
const PARSER_LEVEL: Case[] = [
  { name: 'raw UTF-8 in the path', method: 'GET', target: '/api/id/segment/日本' },
  { name: 'raw space in the path', method: 'GET', target: '/api/id/segment/a b' },
  { name: 'raw tab in the path', method: 'GET', target: '/api/id/segment/a\tb' },
  { name: 'unknown method', method: 'FOO', target: '/api/id/segment/demo' },
  { name: 'lowercase method', method: 'get', target: '/api/id/segment/demo' },
  { name: 'URL over the 16 KiB header limit', method: 'GET', target: `/api/id/segment/${long(20_000)}` },
  {
    name: 'header block over the limit',
    method: 'GET',
    target: '/api/id/segment/demo',
    headers: [['X-Pad', long(20_000)]],
  },
  {
    name: 'two different Content-Length',
    method: 'POST',
    target: '/api/admin/tags',
    headers: [
      ['Content-Length', '2'],
      ['Content-Length', '3'],
    ],
    body: '{}',
  },
  {
    name: 'Content-Length and chunked',
    method: 'POST',
    target: '/api/admin/tags',
    headers: [
      ['Content-Length', '2'],
      ['Transfer-Encoding', 'chunked'],
    ],
    body: '{}',
  },
  {
    name: 'bad chunk size',
    method: 'POST',
    target: '/api/admin/tags',
    headers: [['Transfer-Encoding', 'chunked']],
    body: 'zz\r\n{}\r\n0\r\n\r\n',
  },
  {
    name: 'negative Content-Length',
    method: 'POST',
    target: '/api/admin/tags',
    headers: [['Content-Length', '-1']],
    body: '',
  },
  {
    name: 'header without a colon',
    method: 'GET',
    target: '/api/id/segment/demo',
    headers: [['X-Broken\r\nNoColonHere', 'x']],
  },
];

/** Unknown paths outside the ID handler's prefixes (Next answers those). */
const UNKNOWN_API_PATHS = [
  '/api/admin/tags/demo/extra',
  '/api/admin',
  '/api/admin/nope',
  '/api/auth',
  '/api/nope',
  '/api/health/x',
  '/api/metrics/x',
  '/api/idx',
];

/** Next refuses to build a WHATWG Request for TRACE, so every Next-served /api route answers it with a bare 500. */
const TRACE_TARGETS = [
  '/api/admin/tags',
  '/api/admin/tags/demo',
  '/api/admin/workers',
  '/api/auth/login',
  '/api/auth/session',
  '/api/metrics',
  '/api/nope',
];

/** Methods a Next route does not export. */
const UNEXPORTED_METHODS: Case[] = [
  { name: 'metrics POST', method: 'POST', target: '/api/metrics', auth: true },
  { name: 'metrics DELETE', method: 'DELETE', target: '/api/metrics', auth: true },
  { name: 'workers DELETE', method: 'DELETE', target: '/api/admin/workers', auth: true },
  { name: 'workers POST', method: 'POST', target: '/api/admin/workers', auth: true },
  { name: 'session PUT', method: 'PUT', target: '/api/auth/session' },
  { name: 'logout DELETE', method: 'DELETE', target: '/api/auth/logout' },
];

// ---------------------------------------------------------------------------------------------------- servers

let dir: string;
let fast: ServerProcess;
let nextLane: ServerProcess;
const files: Record<'fast' | 'next', string> = { fast: '', next: '' };
const before: Record<string, string> = {};

function dump(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const alloc = db.prepare('SELECT * FROM leaf_alloc ORDER BY biz_tag').all();
    const tombstones = db.prepare('SELECT * FROM leaf_alloc_tombstone ORDER BY biz_tag').all();
    // No bad or unauthenticated request may create or revoke an access token (the first one would close the ID routes).
    const tokens = db.prepare('SELECT * FROM leaf_token ORDER BY id').all();
    // Nor create, edit or delete a formatted tag, nor claim a period of one that does not exist.
    const formats = db.prepare('SELECT * FROM leaf_format ORDER BY biz_tag').all();
    const periods = db.prepare('SELECT * FROM leaf_format_period ORDER BY biz_tag, period_key').all();
    return JSON.stringify({ alloc, tombstones, tokens, formats, periods }, null, 1);
  } finally {
    db.close();
  }
}

async function admin(server: ServerProcess, method: string, target: string, body?: unknown): Promise<number> {
  const r = await server.api(target, { method, body });
  await r.text();
  return r.status;
}

const portOf = (s: ServerProcess) => Number(new URL(s.url).port);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-badinput-'));
  files.fast = path.join(dir, 'fast.db');
  files.next = path.join(dir, 'next.db');
  [fast, nextLane] = await Promise.all([
    startServer({ LEAF_ADMIN_TOKEN: TOKEN, LEAF_SQLITE_FILE: files.fast }),
    startServer({ LEAF_ADMIN_TOKEN: TOKEN, LEAF_SQLITE_FILE: files.next, LEAF_FAST_LANE: 'off' }),
  ]);
  // Fixtures: a tag with max_id 1000 (so lowering can be tried) and a deleted one (a tombstone at 5000).
  for (const s of [fast, nextLane]) {
    expect(await admin(s, 'POST', '/api/admin/tags', { bizTag: 'sweep', step: 10, maxId: '1000' })).toBe(201);
    expect(await admin(s, 'POST', '/api/admin/tags', { bizTag: 'gone', step: 10, maxId: '5000' })).toBe(201);
    expect(await admin(s, 'DELETE', '/api/admin/tags/gone', { confirm: 'gone' })).toBe(200);
  }
  before.fast = dump(files.fast);
  before.next = dump(files.next);
}, 90_000);

afterAll(async () => {
  await Promise.all([fast?.stop(), nextLane?.stop()]);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------- tests

describe('bad input: every answer is a 4xx JSON error, nothing changes', () => {
  const idCases = idRouteCases();
  const adminCaseList = adminCases();
  // On the Next lane, and for every admin route, Next's router sees the path first.
  const nextOurs = idCases.filter((c) => !nextRouted(c.target) && c.method !== 'TRACE');
  const adminOurs = adminCaseList.filter((c) => !nextRouted(c.target));
  const routedByNext = [
    ...idCases.filter((c) => nextRouted(c.target)),
    ...adminCaseList.filter((c) => nextRouted(c.target)),
  ];

  it(`table sizes (${idCases.length} ID-route cases per lane, ${adminCaseList.length} admin cases)`, () => {
    expect(idCases.length * 2 + adminCaseList.length).toBeGreaterThan(1_000);
  });

  it('ID routes, fast lane (every case, including dot segments, trailing slashes and TRACE)', async () => {
    expect(await sweep(portOf(fast), idCases)).toEqual([]);
  });

  it('ID routes, Next route handlers (LEAF_FAST_LANE=off)', async () => {
    expect(await sweep(portOf(nextLane), nextOurs)).toEqual([]);
  });

  it('admin, auth and metrics routes: credentials, odd tags, bodies, sizes, content types, methods', async () => {
    expect(await sweep(portOf(fast), adminOurs)).toEqual([]);
  });

  it('paths Next normalises or does not route (dot segments, empty / extra segments): 308 or 404, never 5xx', async () => {
    const failures = [
      ...(await sweep(
        portOf(nextLane),
        routedByNext.filter(
          (c) =>
            c.target.startsWith('/api/id') ||
            c.target.startsWith('/api/segment') ||
            c.target.startsWith('/api/snowflake'),
        ),
        8,
        judgeFramework,
      )),
      ...(await sweep(
        portOf(fast),
        routedByNext.filter((c) => c.target.startsWith('/api/admin')),
        8,
        judgeFramework,
      )),
    ];
    expect(failures).toEqual([]);
  });

  it('leaf_alloc and the tombstones are unchanged, no handler crashed, and the servers still serve', async () => {
    expect(dump(files.fast)).toBe(before.fast);
    expect(dump(files.next)).toBe(before.next);
    for (const s of [fast, nextLane]) {
      expect(s.logs()).not.toMatch(/"event":"(unexpected_error|admin_route_failed)"/);
      const r = await fetch(`${s.url}/api/id/segment/demo`);
      expect(r.status).toBe(200);
    }
  });
});

describe('bad input the framework answers before our code', () => {
  it('parser-level rejects (raw unicode, spaces, bad methods, over-long URL / headers, bad framing): 4xx, never 5xx, connection closed', async () => {
    for (const c of PARSER_LEVEL) {
      const a = await raw(portOf(fast), build(c, TOKEN));
      expect(a.timedOut, c.name).toBe(false);
      expect(a.noResponse, c.name).toBe(false);
      expect(a.status, `${c.name}: ${a.status}`).toBeGreaterThanOrEqual(400);
      expect(a.status, `${c.name}: ${a.status}`).toBeLessThan(500);
    }
  });

  it('parser-level rejects carry a JSON error body (today: bare 400/431 from Node, no body; server.ts has no clientError handler)', async () => {
    expect(await sweep(portOf(fast), PARSER_LEVEL, 4)).toEqual([]);
  });

  it('unknown /api paths outside the ID prefixes: 404, never 5xx', async () => {
    for (const p of UNKNOWN_API_PATHS) {
      const a = await raw(portOf(fast), build({ name: p, method: 'GET', target: p, auth: true }, TOKEN));
      expect(a.status, p).toBe(404);
    }
  });

  it('unknown /api paths answer JSON (today: Next’s HTML not-found page)', async () => {
    expect(
      await sweep(
        portOf(fast),
        UNKNOWN_API_PATHS.map((p): Case => ({ name: 'unknown path', method: 'GET', target: p, auth: true })),
      ),
    ).toEqual([]);
  });

  it('methods a Next route does not export: 405, never 5xx', async () => {
    for (const c of UNEXPORTED_METHODS) expect((await raw(portOf(fast), build(c, TOKEN))).status, c.name).toBe(405);
  });

  it('methods a Next route does not export answer 405 JSON (today: empty body)', async () => {
    expect(await sweep(portOf(fast), UNEXPORTED_METHODS)).toEqual([]);
  });

  it('CONNECT never gets a 5xx (today: the connection is closed without an answer)', async () => {
    const a = await raw(portOf(fast), build({ name: 'CONNECT', method: 'CONNECT', target: '127.0.0.1:1' }, TOKEN));
    expect(a.timedOut).toBe(false);
    expect(a.noResponse || (a.status >= 400 && a.status < 500)).toBe(true);
  });

  it('CONNECT answers a 4xx JSON error (today: connection closed, no answer; server.ts has no "connect" listener)', async () => {
    const c: Case = { name: 'CONNECT', method: 'CONNECT', target: '127.0.0.1:1' };
    expect(judge(c, await raw(portOf(fast), build(c, TOKEN)))).toBeNull();
  });

  it('TRACE on Next-served /api routes answers 405 JSON (today: a bare 500, "TypeError: \'TRACE\' HTTP method is unsupported.")', async () => {
    const failures: string[] = [];
    for (const target of TRACE_TARGETS) {
      const c: Case = { name: 'TRACE', method: 'TRACE', target, auth: true };
      const problem = judge(c, await raw(portOf(fast), build(c, TOKEN)));
      if (problem !== null) failures.push(`${target}: ${problem}`);
    }
    for (const target of ID_ROUTES_GET) {
      const c: Case = { name: 'TRACE (Next lane)', method: 'TRACE', target };
      const problem = judge(c, await raw(portOf(nextLane), build(c, TOKEN)));
      if (problem !== null) failures.push(`Next lane ${target}: ${problem}`);
    }
    expect(failures).toEqual([]);
  });

  it('a declared Content-Length over 16 KiB is refused at once with 413 (today: no answer until the whole body arrives — Next buffers it for proxy.ts)', async () => {
    for (const target of ['/api/admin/tags', '/api/auth/login']) {
      const head = `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"a":`;
      const a = await raw(portOf(fast), Buffer.from(head, 'latin1'), 3_000);
      expect(a.timedOut, `${target}: no answer within 3 s`).toBe(false);
      expect(a.status, target).toBe(413);
    }
  });
});
