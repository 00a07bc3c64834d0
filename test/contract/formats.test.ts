import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateFields, periodKey } from '../../lib/format/period';
import { type ServerProcess, startServer } from '../support/serverProcess';
import { clientFetch } from '../support/clientIds';

/**
 * Formatted IDs through the real server: two nodes on one SQLite file, one on the fast lane and one with
 * LEAF_FAST_LANE=off (Next's catch-all route). The admin API creates, edits, deletes and re-creates a format; both
 * lanes serve it, refuse bad input with JSON 4xx, and a scoped token only on the tag it names.
 */
const ADMIN = 'formats-contract-admin-0123456789abcdef';

let dir: string;
let fast: ServerProcess;
let nextLane: ServerProcess;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-formats-'));
  const env = { LEAF_ADMIN_TOKEN: ADMIN, LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'), LEAF_TOKEN_REFRESH_MS: '300' };
  fast = await startServer(env);
  nextLane = await startServer({ ...env, LEAF_FAST_LANE: 'off' });
}, 90_000);

afterAll(async () => {
  await Promise.all([fast?.stop(), nextLane?.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

function admin(
  server: ServerProcess,
  method: string,
  target: string,
  body?: unknown,
  token = ADMIN,
): Promise<Response> {
  return fetch(`${server.url}${target}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** An ID route as a client asks it (test/support/clientIds.ts: retryable answers retried). */
const get = (server: ServerProcess, target: string, token?: string) =>
  clientFetch(`${server.url}${target}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

/** `status code` of an error answer (JSON checked), `200` of a success. */
async function outcome(r: Response): Promise<string> {
  const text = await r.text();
  if (r.status === 200 || r.status === 201) return String(r.status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  return `${r.status} ${JSON.parse(text).error.code}`;
}

const ORD = {
  bizTag: 'ord',
  pattern: 'ORD-{yyyyMMdd}-{seq:6}',
  resetPeriod: 'daily',
  timeZone: 'asia/shanghai',
  step: 20,
};
const today = () => periodKey('daily', dateFields('Asia/Shanghai', Date.now()));
const lanes = () =>
  [
    ['fast lane', fast],
    ['Next lane', nextLane],
  ] as const;

describe('formatted tags through the admin API and both lanes', () => {
  const issued: string[] = [];

  it('creates a format (zone made canonical) and refuses bad ones with field messages', async () => {
    const r = await admin(fast, 'POST', '/api/admin/formats', ORD);
    expect(r.status).toBe(201);
    const body = await r.json();
    expect(body.format).toMatchObject({
      bizTag: 'ord',
      timeZone: 'Asia/Shanghai',
      currentPeriod: today(),
      currentCount: 0,
    });
    expect(body.periods).toEqual([]);
    expect(await outcome(await admin(fast, 'POST', '/api/admin/formats', ORD))).toBe('409 tag_exists');
    const bad = await admin(nextLane, 'POST', '/api/admin/formats', {
      ...ORD,
      bizTag: 'x',
      pattern: 'X-{yyyyMM}-{seq:6}',
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.fields.pattern).toContain('{dd}');
    for (const wrong of [
      { timeZone: 'Mars/Base' },
      { resetPeriod: 'hourly' },
      { pattern: 'X{seq:16}' },
      { step: 0 },
      { extra: 1 },
    ]) {
      expect(
        await outcome(await admin(fast, 'POST', '/api/admin/formats', { ...ORD, bizTag: 'x', ...wrong })),
        JSON.stringify(wrong),
      ).toBe('400 validation_failed');
    }
    expect(await outcome(await admin(fast, 'POST', '/api/admin/formats', ORD, 'wrong'))).toBe('401 unauthorized');
  });

  it.each([0, 1])('serves single IDs and batches on both lanes (%#)', async () => {
    for (const [lane, server] of lanes()) {
      const one = await get(server, '/api/id/formatted/ord');
      expect(one.status, lane).toBe(200);
      const single = await one.json();
      expect(single).toEqual({ tag: 'ord', id: expect.stringMatching(new RegExp(`^ORD-${today()}-\\d{6}$`)) });
      const batch = await (await get(server, '/api/id/formatted/ord?count=5')).json();
      expect(batch.tag).toBe('ord');
      expect(batch.ids).toHaveLength(5);
      issued.push(single.id, ...batch.ids);
    }
    expect(new Set(issued).size).toBe(issued.length);
  });

  it('literal text JSON must escape (a quote, a backslash) and non-ASCII comes back exact on both lanes, single and batch', async () => {
    const pattern = 'Q"\\é-{yyyy}-{seq:4}';
    expect(
      (await admin(fast, 'POST', '/api/admin/formats', { ...ORD, bizTag: 'quoted', pattern, resetPeriod: 'yearly' }))
        .status,
    ).toBe(201);
    const year = dateFields('Asia/Shanghai', Date.now()).yyyy;
    const shape = new RegExp(`^Q"\\\\é-${year}-\\d{4}$`);
    for (const [lane, server] of lanes()) {
      const single = await (await get(server, '/api/id/formatted/quoted')).json();
      expect(single.id, lane).toMatch(shape);
      const batch = await (await get(server, '/api/id/formatted/quoted?count=50')).json();
      expect(batch.ids, lane).toHaveLength(50);
      for (const id of batch.ids) expect(id, lane).toMatch(shape);
      expect(new Set(batch.ids).size).toBe(50);
    }
    expect((await admin(fast, 'DELETE', '/api/admin/formats/quoted')).status).toBe(200); // the list below expects `ord` alone
  });

  it('refuses bad input on both lanes with JSON 4xx', async () => {
    for (const [lane, server] of lanes()) {
      const cases: Array<[string, string]> = [
        ['/api/id/formatted/nope', '404 tag_not_found'],
        ['/api/id/formatted/nope?count=3', '404 tag_not_found'],
        ['/api/id/formatted/ord?count=0', '400 invalid_count'],
        ['/api/id/formatted/ord?count=10001', '400 invalid_count'],
        ['/api/id/formatted/ord?count=abc', '400 invalid_count'],
        ['/api/id/formatted/ord?count=1&count=2', '400 invalid_count'],
        ['/api/id/formatted/bad%20tag', '400 invalid_tag'],
        ['/api/id/formatted/ord/extra', '404 route_not_found'],
      ];
      for (const [target, expected] of cases)
        expect(await outcome(await get(server, target)), `${lane} ${target}`).toBe(expected);
      expect(await outcome(await fetch(`${server.url}/api/id/formatted/ord`, { method: 'POST' })), lane).toBe(
        '405 method_not_allowed',
      );
    }
  });

  it('lists formats with the current period count and shows each period', async () => {
    const list = await (await admin(nextLane, 'GET', '/api/admin/formats')).json();
    expect(list.formats).toHaveLength(1);
    // Both nodes claimed segments of today: the count is what they claimed, at least what they issued.
    expect(list.formats[0].currentCount).toBeGreaterThanOrEqual(issued.length);
    const detail = await (await admin(fast, 'GET', '/api/admin/formats/ord')).json();
    expect(detail.periods.map((p: { periodKey: string }) => p.periodKey)).toEqual([today()]);
    expect(detail.periods[0].maxId).toBe(list.formats[0].currentCount);
    expect(await outcome(await admin(fast, 'GET', '/api/admin/formats/nope'))).toBe('404 tag_not_found');
  });

  it('edits only what keeps IDs unique, audited', async () => {
    expect(
      await outcome(await admin(fast, 'PATCH', '/api/admin/formats/ord', { pattern: 'ORD-{yyyyMMdd}-{seq:5}' })),
    ).toBe('409 format_conflict');
    expect(
      await outcome(await admin(fast, 'PATCH', '/api/admin/formats/ord', { pattern: 'ORD-{yyyyMM}-{seq:7}' })),
    ).toBe('400 validation_failed');
    expect(await outcome(await admin(fast, 'PATCH', '/api/admin/formats/ord', { resetPeriod: 'monthly' }))).toBe(
      '400 validation_failed',
    );
    expect(await outcome(await admin(fast, 'PATCH', '/api/admin/formats/ord', {}))).toBe('400 validation_failed');
    const widened = await admin(fast, 'PATCH', '/api/admin/formats/ord', {
      pattern: 'ORD-{yyyyMMdd}-{seq:7}',
      description: 'orders',
    });
    expect(widened.status).toBe(200);
    expect((await widened.json()).format).toMatchObject({ pattern: 'ORD-{yyyyMMdd}-{seq:7}', description: 'orders' });
    const id = (await (await get(fast, '/api/id/formatted/ord')).json()).id;
    expect(id).toMatch(new RegExp(`^ORD-${today()}-\\d{7}$`));
    const audit = await (await admin(fast, 'GET', '/api/admin/audit?tag=ord')).json();
    expect(audit.entries.map((e: { action: string }) => e.action)).toEqual(['format.edit', 'format.create']);
  });

  it('delete keeps the periods; re-creating needs the same shape and continues above them', async () => {
    const before = (await (await admin(fast, 'GET', '/api/admin/formats/ord')).json()).periods[0].maxId;
    expect(await outcome(await admin(fast, 'DELETE', '/api/admin/formats/ord'))).toBe('200');
    expect(await outcome(await get(fast, '/api/id/formatted/ord'))).toBe('404 tag_not_found');
    expect(await outcome(await admin(fast, 'DELETE', '/api/admin/formats/ord'))).toBe('404 tag_not_found');
    expect(
      await outcome(await admin(fast, 'POST', '/api/admin/formats', { ...ORD, pattern: 'ORD{yyyyMMdd}{seq:7}' })),
    ).toBe('409 format_conflict');
    expect(
      await outcome(await admin(fast, 'POST', '/api/admin/formats', { ...ORD, pattern: 'ORD-{yyyyMMdd}-{seq:8}' })),
    ).toBe('201');
    const next = (await (await get(fast, '/api/id/formatted/ord')).json()).id as string;
    expect(Number(next.slice(-8))).toBe(before + 1);
  });

  it('a used-up period answers 503 sequence_exhausted on both lanes, never a wider or wrapped number', async () => {
    const tiny = { bizTag: 'tiny', pattern: 'T{seq:1}', resetPeriod: 'never', timeZone: 'UTC', step: 5 };
    expect(await outcome(await admin(fast, 'POST', '/api/admin/formats', tiny))).toBe('201');
    const all = await (await get(fast, '/api/id/formatted/tiny?count=9')).json();
    expect(all.ids).toEqual(['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9']);
    for (const [lane, server] of lanes()) {
      const r = await get(server, '/api/id/formatted/tiny');
      expect(r.status, lane).toBe(503);
      const { error } = await r.json();
      expect(error.code, lane).toBe('sequence_exhausted');
      expect(error.message, lane).toContain('Formatted tag "tiny" has used every number');
      expect(error.message, lane).toContain('{seq:1} ends at 9');
    }
  });

  it('a scoped token draws formatted IDs of its tag only; without a token the routes close', async () => {
    const created = await (await admin(fast, 'POST', '/api/admin/tokens', { name: 'ord svc', tags: ['ord'] })).json();
    expect(
      await outcome(
        await admin(fast, 'POST', '/api/admin/formats', { ...ORD, bizTag: 'inv', pattern: 'INV{yyyyMMdd}{seq:4}' }),
      ),
    ).toBe('201');
    const secret = created.secret as string;
    for (const [lane, server] of lanes()) {
      // The other node learns of the token within LEAF_TOKEN_REFRESH_MS: until then its routes are still open.
      const deadline = Date.now() + 30_000; // a liveness bound, far past the refresh
      let closed = '';
      while (
        Date.now() < deadline &&
        (closed = await outcome(await get(server, '/api/id/formatted/ord'))) !== '401 unauthorized'
      )
        await new Promise((r) => setTimeout(r, 100));
      expect(closed, lane).toBe('401 unauthorized');
      expect(await outcome(await get(server, '/api/id/formatted/ord?count=2', secret)), lane).toBe('200');
      expect(await outcome(await get(server, '/api/id/formatted/inv', secret)), lane).toBe('403 forbidden_tag');
      expect(await outcome(await get(server, '/api/id/segment/demo', secret)), lane).toBe('403 forbidden_tag');
    }
  });
});
