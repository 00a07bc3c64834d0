import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiInit, type ServerProcess, startServer } from '../support/serverProcess';
import { takeIds } from '../support/clientIds';

/**
 * A tag's ordering over the admin API on the real server (every answer checked against the OpenAPI document): make
 * a tag strict and back, the owner in the tag view, the audit entry, bad values refused with nothing changed, range
 * leases refused, and the owner route; the metrics count the lease taken.
 */
const TOKEN = 'contract-admin-token-ordering-01';
let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({ LEAF_ADMIN_TOKEN: TOKEN, LEAF_ORDER_POLL_MS: '100', LEAF_ORDER_MARGIN_MS: '200' });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const api = (path: string, init?: ApiInit) => server.api(path, init);

describe('ordering over HTTP', () => {
  it('a tag created strict gets this node as its owner, shown in the tag view with its epoch and lease', async () => {
    const created = await api('/api/admin/tags', {
      method: 'POST',
      body: { bizTag: 'ord-a', step: 100, ordering: 'strict' },
    });
    expect(created.status).toBe(201);
    expect((await created.json()).tag).toMatchObject({ ordering: 'strict', owner: null });
    // Retried as a client does: owner_unavailable while the tag settles (two polls and the margin).
    const ids = await takeIds(`${server.url}/api/id/segment/ord-a?count=5`);
    const more = await takeIds(`${server.url}/api/id/owner/ord-a?count=5`);
    expect([...ids, ...more].map(Number)).toEqual([...ids, ...more].map(Number).sort((a, b) => a - b));
    const detail = await (await api('/api/admin/tags/ord-a')).json();
    expect(detail.tag.ordering).toBe('strict');
    expect(detail.tag.owner).toMatchObject({ epoch: 1, address: new URL(server.url).host });
    expect(detail.tag.owner.leaseLeftMs).toBeGreaterThan(0);
    const metrics = await (await api('/api/metrics')).text();
    expect(metrics).toMatch(/leaf_ordered_ownership_changes_total\{change="acquired"\} 1/);
    expect(metrics).toMatch(/leaf_ordered_tags_owned 1/);
  });

  it('refuses a range lease of a strict tag with 409 strict_tag_range', async () => {
    const r = await fetch(`${server.url}/api/id/segment/ord-a/range?count=10`);
    expect(r.status).toBe(409);
    expect((await r.json()).error.code).toBe('strict_tag_range');
  });

  it('PATCH sets and clears the ordering, each change audited as tag.ordering', async () => {
    expect((await api('/api/admin/tags', { method: 'POST', body: { bizTag: 'ord-b', step: 10 } })).status).toBe(201);
    const strict = await api('/api/admin/tags/ord-b', { method: 'PATCH', body: { ordering: 'strict' } });
    expect(strict.status).toBe(200);
    expect((await strict.json()).tag.ordering).toBe('strict');
    const none = await api('/api/admin/tags/ord-b', { method: 'PATCH', body: { ordering: 'none' } });
    expect((await none.json()).tag).toMatchObject({ ordering: 'none', owner: null });
    const audit = await (await api('/api/admin/audit?tag=ord-b')).json();
    expect(audit.entries.filter((e: { action: string }) => e.action === 'tag.ordering')).toEqual([
      expect.objectContaining({ before: { ordering: 'strict' }, after: { ordering: 'none' } }),
      expect.objectContaining({ before: { ordering: 'none' }, after: { ordering: 'strict' } }),
    ]);
    // An ordinary tag again: range leases work.
    expect((await fetch(`${server.url}/api/id/segment/ord-b/range?count=10`)).status).toBe(200);
  });

  it('a bad ordering is 400 validation_failed naming the field, and changes nothing', async () => {
    for (const ordering of ['STRICT', 1, null, 'ordered']) {
      const r = await api('/api/admin/tags/ord-b', { method: 'PATCH', body: { ordering } });
      expect(r.status).toBe(400);
      const body = await r.json();
      expect(body.error.code).toBe('validation_failed');
      expect(body.error.fields).toHaveProperty('ordering');
    }
    const bad = await api('/api/admin/tags', { method: 'POST', body: { bizTag: 'ord-c', step: 10, ordering: 'yes' } });
    expect(bad.status).toBe(400);
    expect((await api('/api/admin/tags/ord-c')).status).toBe(404);
    expect((await (await api('/api/admin/tags/ord-b')).json()).tag.ordering).toBe('none');
    const missing = await api('/api/admin/tags/no-such-tag', { method: 'PATCH', body: { ordering: 'strict' } });
    expect(missing.status).toBe(404);
  });
});
