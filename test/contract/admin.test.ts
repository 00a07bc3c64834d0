import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollFor } from '../../tools/harness';
import { type ApiInit, type ServerProcess, startServer } from '../support/serverProcess';
import { clientGet, takeIds } from '../support/clientIds';

/** The admin API on the real server: credentials, validation, refusals that protect uniqueness, tombstones. */
const TOKEN = 'contract-admin-token-0123456789';
let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({ LEAF_ADMIN_TOKEN: TOKEN });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const api = (path: string, init?: ApiInit) => server.api(path, init);

async function nextId(tag: string): Promise<number> {
  return Number((await takeIds(`${server.url}/api/id/segment/${tag}`))[0]);
}

describe('admin auth', () => {
  it.each([
    ['GET', '/api/admin/tags'],
    ['POST', '/api/admin/tags'],
    ['GET', '/api/admin/tags/demo'],
    ['PATCH', '/api/admin/tags/demo'],
    ['DELETE', '/api/admin/tags/demo'],
    ['GET', '/api/admin/workers'],
    ['GET', '/api/metrics'],
  ])('%s %s without or with a wrong credential → 401 JSON, no detail', async (method, path) => {
    for (const auth of [null, 'wrong-token']) {
      const r = await api(path, { method, auth, body: method === 'GET' ? undefined : '{}' });
      expect(r.status).toBe(401);
      const body = await r.json();
      expect(body.error.code).toBe('unauthorized');
      expect(JSON.stringify(body)).not.toContain(TOKEN);
    }
  });

  it('login sets an HttpOnly SameSite=Strict session cookie that the admin API accepts', async () => {
    const wrong = await api('/api/auth/login', { method: 'POST', auth: null, body: JSON.stringify({ token: 'nope' }) });
    expect(wrong.status).toBe(401);
    const ok = await api('/api/auth/login', { method: 'POST', auth: null, body: JSON.stringify({ token: TOKEN }) });
    expect(ok.status).toBe(200);
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const session = cookie.split(';')[0]!;
    const list = await api('/api/admin/tags', { auth: null, headers: { cookie: session } });
    expect(list.status).toBe(200);
    const state = await (await api('/api/auth/session', { auth: null, headers: { cookie: session } })).json();
    expect(state).toEqual({ authenticated: true });
    const forged = await api('/api/admin/tags', {
      auth: null,
      headers: { cookie: session.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) },
    });
    expect(forged.status).toBe(401);
  });

  it('the ID API stays open by default', async () => {
    expect(await takeIds(`${server.url}/api/id/segment/demo`)).toHaveLength(1);
  });
});

describe('tag management', () => {
  it('creates a tag that serves at once, starting above an initial max_id', async () => {
    const r = await api('/api/admin/tags', {
      method: 'POST',
      body: JSON.stringify({ bizTag: 'orders.v2', step: 50, maxId: '1000000', description: 'migrated' }),
    });
    expect(r.status).toBe(201);
    const { tag } = await r.json();
    expect(tag).toMatchObject({ bizTag: 'orders.v2', maxId: '1000000', step: 50, description: 'migrated' });
    expect(await nextId('orders.v2')).toBe(1_000_001);
    const dup = await api('/api/admin/tags', {
      method: 'POST',
      body: JSON.stringify({ bizTag: 'orders.v2', step: 50 }),
    });
    expect(dup.status).toBe(409);
    expect((await dup.json()).error.code).toBe('tag_exists');
  });

  it.each([
    [{ bizTag: '', step: 10 }, 'bizTag'],
    [{ bizTag: 'bad tag', step: 10 }, 'bizTag'],
    [{ bizTag: 'x'.repeat(129), step: 10 }, 'bizTag'],
    [{ bizTag: 'ok', step: 0 }, 'step'],
    [{ bizTag: 'ok', step: 1_000_001 }, 'step'],
    [{ bizTag: 'ok', step: 1.5 }, 'step'],
    [{ bizTag: 'ok', step: '10' }, 'step'],
    [{ bizTag: 'ok', step: 10, maxId: 0 }, 'maxId'],
    [{ bizTag: 'ok', step: 10, maxId: '-5' }, 'maxId'],
    [{ bizTag: 'ok', step: 10, maxId: '99999999999999999999' }, 'maxId'],
    [{ bizTag: 'ok', step: 10, description: 'd'.repeat(257) }, 'description'],
    [{ bizTag: 'ok', step: 10, extra: true }, 'extra'],
  ])('create %j → 400 with a field error on %s, nothing created', async (body, field) => {
    const r = await api('/api/admin/tags', { method: 'POST', body: JSON.stringify(body) });
    expect(r.status).toBe(400);
    const { error } = await r.json();
    expect(error.code).toBe('validation_failed');
    expect(error.fields[field]).toEqual(expect.any(String));
    expect((await api('/api/admin/tags/ok')).status).toBe(404);
  });

  it.each([
    ['not json', 'invalid_request', 400],
    ['[1,2', 'invalid_request', 400],
    [JSON.stringify({ bizTag: 'big', step: 10, description: 'x'.repeat(20_000) }), 'payload_too_large', 413],
  ])('malformed body %#: %s', async (body, code, status) => {
    const r = await api('/api/admin/tags', { method: 'POST', body });
    expect(r.status).toBe(status);
    expect((await r.json()).error.code).toBe(code);
  });

  it('edits step and description; raises max_id but refuses to lower it, leaving the row unchanged', async () => {
    await api('/api/admin/tags', { method: 'POST', body: JSON.stringify({ bizTag: 'edit-me', step: 10 }) });
    const issued = await nextId('edit-me');
    const edited = await (
      await api('/api/admin/tags/edit-me', {
        method: 'PATCH',
        body: JSON.stringify({ step: 500, description: 'bigger' }),
      })
    ).json();
    expect(edited.tag).toMatchObject({ step: 500, description: 'bigger' });

    const before = (await (await api('/api/admin/tags/edit-me')).json()).tag.maxId;
    const lower = await api('/api/admin/tags/edit-me', {
      method: 'PATCH',
      body: JSON.stringify({ maxId: '5', step: 999 }),
    });
    expect(lower.status).toBe(409);
    const { error } = await lower.json();
    expect(error.code).toBe('max_id_lowered');
    expect(error.message).toContain(before);
    const after = (await (await api('/api/admin/tags/edit-me')).json()).tag;
    expect(after).toMatchObject({ maxId: before, step: 500 }); // step not applied either

    const raised = await api('/api/admin/tags/edit-me', {
      method: 'PATCH',
      body: JSON.stringify({ maxId: '5000000' }),
    });
    expect(raised.status).toBe(200);
    expect((await raised.json()).tag.maxId).toBe('5000000');
    expect(issued).toBe(2);
  });

  it('deletes only with the typed confirmation, and a re-created tag continues above its old IDs', async () => {
    await api('/api/admin/tags', { method: 'POST', body: JSON.stringify({ bizTag: 'phoenix', step: 100 }) });
    const old: number[] = [];
    for (let i = 0; i < 5; i++) old.push(await nextId('phoenix'));

    const mismatch = await api('/api/admin/tags/phoenix', {
      method: 'DELETE',
      body: JSON.stringify({ confirm: 'phoenix2' }),
    });
    expect(mismatch.status).toBe(400);
    expect((await mismatch.json()).error.code).toBe('confirmation_mismatch');
    expect((await api('/api/admin/tags/phoenix')).status).toBe(200);

    const del = await api('/api/admin/tags/phoenix', {
      method: 'DELETE',
      body: JSON.stringify({ confirm: 'phoenix' }),
    });
    expect(del.status).toBe(200);
    const { maxId } = await del.json();
    expect((await clientGet(`${server.url}/api/id/segment/phoenix`)).status).toBe(404);

    const fromOne = await api('/api/admin/tags', {
      method: 'POST',
      body: JSON.stringify({ bizTag: 'phoenix', step: 100, maxId: 1 }),
    });
    expect(fromOne.status).toBe(409);
    expect((await fromOne.json()).error.code).toBe('max_id_below_tombstone');

    const again = await api('/api/admin/tags', {
      method: 'POST',
      body: JSON.stringify({ bizTag: 'phoenix', step: 100 }),
    });
    expect(again.status).toBe(201);
    expect((await again.json()).tag.maxId).toBe(maxId);
    const fresh = await nextId('phoenix');
    expect(fresh).toBeGreaterThan(Math.max(...old));
    expect(fresh).toBeGreaterThan(Number(maxId));
  });

  it('bad tag names in the path are 400, unknown ones 404', async () => {
    expect((await api('/api/admin/tags/bad%20tag')).status).toBe(400);
    expect((await api('/api/admin/tags/%E0%A4%A')).status).toBe(400);
    // Decoded once, as every path: `demo%2541` is the tag "demo%41" (invalid), never "demoA".
    const twice = await api('/api/admin/tags/demo%2541');
    expect(twice.status).toBe(400);
    expect((await twice.json()).error.code).toBe('invalid_tag');
    expect((await api('/api/admin/tags/de%6Do')).status).toBe(200);
    expect((await api('/api/admin/tags/nope')).status).toBe(404);
    const patch = await api('/api/admin/tags/nope', { method: 'PATCH', body: JSON.stringify({ step: 5 }) });
    expect(patch.status).toBe(404);
  });

  it('lists tags with engine state and serves the detail history', async () => {
    for (let i = 0; i < 3; i++) await nextId('demo');
    const page = await (await api('/api/admin/tags?q=DEM&sort=-rate')).json();
    expect(page).toMatchObject({
      total: 1,
      offset: 0,
      limit: 50,
      totals: { tags: expect.any(Number), loaded: expect.any(Number), ratePerSec: expect.any(Number) },
    });
    const { tags } = page;
    const demo = tags.find((t: { bizTag: string }) => t.bizTag === 'demo');
    expect(demo.engine).toMatchObject({ minStep: 1000, loading: expect.any(Boolean) });
    expect(demo.engine.issuedTotal).toBeGreaterThanOrEqual(3);
    const detail = await (await api('/api/admin/tags/demo')).json();
    expect(detail.history.loads.length).toBeGreaterThanOrEqual(1);
    expect(detail.history.loads[0]).toMatchObject({ ok: true, step: 1000 });
    expect(detail.history.steps[0]).toMatchObject({ step: 1000 });
  });
});

describe('metrics', () => {
  it('exposes Prometheus text with node totals, and per-tag series for a busy tag (LEAF_METRICS_TAGS top:100)', async () => {
    // A tag counts as busy once the once-a-second rate sampler has seen it issue.
    const text = await pollFor(
      10_000,
      async () => {
        await nextId('demo');
        const r = await api('/api/metrics');
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toMatch(/text\/plain/);
        const body = await r.text();
        return /leaf_ids_issued_total\{biz_tag="demo"\}/.test(body) ? body : undefined;
      },
      250,
    );
    expect(text).toBeDefined();
    expect(text).toMatch(/^leaf_ids_issued_all_total \d+/m);
    expect(text).toMatch(/^leaf_segment_tags\{state="unloaded"\} \d+/m);
    expect(text).toMatch(/^leaf_store_up 1$/m);
    expect(text).toMatch(/^leaf_snowflake_lease_ok 1$/m);
    expect(text).toMatch(/leaf_ids_issued_total\{biz_tag="demo"\} \d+/);
    expect(text).toMatch(/leaf_segment_loads_total\{biz_tag="demo",outcome="ok"\} \d+/);
    expect(text).toMatch(/leaf_segment_remaining\{biz_tag="demo"\} \d+/);
    expect(text).toContain('leaf_snowflake_worker_id');
  });
});
