import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiInit, type ServerProcess, startServer } from '../support/serverProcess';
import { takeIds } from '../support/clientIds';

/**
 * Claim semantics on the real server: LEAF_SEGMENT_SEMANTICS switching the fleet default at start, the admin API
 * (GET/PUT /api/admin/semantics, PATCH of a tag), its validation, and the IDs that follow from each semantics.
 */
const TOKEN = 'contract-admin-token-semantics-01';
let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({ LEAF_ADMIN_TOKEN: TOKEN, LEAF_SEGMENT_SEMANTICS: 'leaf' });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const api = (path: string, init?: ApiInit) => server.api(path, init);

async function ids(tag: string, count: number): Promise<number[]> {
  return (await takeIds(`${server.url}/api/id/segment/${tag}?count=${count}`)).map(Number);
}

describe('claim semantics over HTTP', () => {
  it('LEAF_SEGMENT_SEMANTICS=leaf made the fleet default leaf before serving, audited as the config', async () => {
    expect(server.logs()).toContain('fleet_semantics_switched');
    const r = await api('/api/admin/semantics');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ default: 'leaf', tags: {} });
    const audit = await (await api('/api/admin/audit')).json();
    expect(audit.entries).toContainEqual(
      expect.objectContaining({
        action: 'fleet.semantics',
        actor: 'config:LEAF_SEGMENT_SEMANTICS',
        before: { semantics: 'leaf-ts' },
      }),
    );
  });

  it('a leaf tag serves from max_id itself, as Java Leaf; switched to leaf-ts it carries on above, nothing twice', async () => {
    expect(
      (await api('/api/admin/tags', { method: 'POST', body: { bizTag: 'sem', step: 10, maxId: 100 } })).status,
    ).toBe(201);
    const detail = await (await api('/api/admin/tags/sem')).json();
    expect(detail.tag.semantics).toBe('leaf');
    const first = await ids('sem', 5);
    expect(first).toEqual([100, 101, 102, 103, 104]);

    const patched = await api('/api/admin/tags/sem', { method: 'PATCH', body: { semantics: 'leaf-ts' } });
    expect(patched.status).toBe(200);
    expect((await patched.json()).tag).toMatchObject({ semantics: 'leaf-ts' });
    expect(await (await api('/api/admin/semantics')).json()).toEqual({ default: 'leaf', tags: { sem: 'leaf-ts' } });
    const more = [...first, ...(await ids('sem', 60))];
    expect(new Set(more).size).toBe(more.length);
    expect(more).toEqual([...more].sort((a, b) => a - b));

    // Back to the default (leaf): leaf-ts → leaf skips one ID, and the list shows the effective semantics.
    const back = await api('/api/admin/tags/sem', { method: 'PATCH', body: { semantics: null } });
    expect(back.status).toBe(200);
    const list = await (await api('/api/admin/tags?q=sem')).json();
    expect(list.tags.find((t: { bizTag: string }) => t.bizTag === 'sem')).toMatchObject({ semantics: 'leaf' });
    const after = [...more, ...(await ids('sem', 200))];
    expect(new Set(after).size).toBe(after.length);
  });

  it('PUT switches the fleet default and says what it did', async () => {
    const r = await api('/api/admin/semantics', { method: 'PUT', body: { semantics: 'leaf-ts' } });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({
      default: 'leaf-ts',
      tags: {},
      switched: { before: 'leaf', after: 'leaf-ts', bumped: 0 },
    });
    const again = await (await api('/api/admin/semantics', { method: 'PUT', body: { semantics: 'leaf' } })).json();
    expect(again.switched.before).toBe('leaf-ts');
    expect(again.switched.bumped).toBeGreaterThanOrEqual(2); // demo and sem
  });

  it.each([
    ['PUT', '/api/admin/semantics', { semantics: 'java' }],
    ['PUT', '/api/admin/semantics', {}],
    ['PUT', '/api/admin/semantics', { semantics: 'leaf', extra: 1 }],
    ['PATCH', '/api/admin/tags/sem', { semantics: 5 }],
    ['PATCH', '/api/admin/tags/sem', { semantics: 'LEAF' }],
  ])('%s %s %j → 400 validation_failed naming the field', async (method, path, body) => {
    const r = await api(path, { method, body });
    expect(r.status).toBe(400);
    const answer = await r.json();
    expect(answer.error.code).toBe('validation_failed');
    expect(Object.keys(answer.error.fields ?? {}).length).toBeGreaterThan(0);
  });

  it('needs the admin credential; other methods are 405; an unknown tag is 404', async () => {
    expect((await api('/api/admin/semantics', { auth: null })).status).toBe(401);
    expect(
      (await api('/api/admin/semantics', { method: 'PUT', auth: 'wrong', body: { semantics: 'leaf' } })).status,
    ).toBe(401);
    const post = await api('/api/admin/semantics', { method: 'POST', body: { semantics: 'leaf' } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, PUT');
    expect((await api('/api/admin/tags/nope', { method: 'PATCH', body: { semantics: 'leaf' } })).status).toBe(404);
  });
});
