import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeafClient } from '../../lib/client';
import { type ServerProcess, startServer } from '../support/serverProcess';
import { clientGet } from '../support/clientIds';

/**
 * A tag migrated from Leaf above 2^53 (issue 10 part 5), through a real server on both lanes: created at max_id
 * 10^17 through the admin API, it issues 100000000000000001 exactly — JSON strings on single, batch and range,
 * plain text on Leaf's route, a bigint in LeafClient — and near 2^63−1 it stops with id_space_exhausted.
 */
const TOKEN = 'contract-wide-ids-token-0123456789';
const MIGRATED = '100000000000000000';
const lanes: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'fast lane', env: { LEAF_ADMIN_TOKEN: TOKEN } },
  { name: 'Next route handlers', env: { LEAF_ADMIN_TOKEN: TOKEN, LEAF_FAST_LANE: 'off' } },
];

for (const lane of lanes) {
  describe(`IDs beyond 2^53: ${lane.name}`, () => {
    let server: ServerProcess;
    const admin = (path: string, method: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const get = async (path: string) => {
      const r = await clientGet(`${server.url}${path}`);
      return { status: r.status, text: r.text };
    };

    beforeAll(async () => {
      server = await startServer(lane.env);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('a tag created at max_id 10^17 answers 100000000000000001 exactly on every ID route and in LeafClient', async () => {
      const created = await admin('/api/admin/tags', 'POST', { bizTag: 'migrated', step: 1000, maxId: MIGRATED });
      expect(created.status).toBe(201);
      expect((await created.json()).tag.maxId).toBe(MIGRATED);

      expect(JSON.parse((await get('/api/id/segment/migrated')).text)).toEqual({
        tag: 'migrated',
        id: '100000000000000001',
      });
      expect(await get('/api/id/segment/migrated?count=3')).toEqual({
        status: 200,
        text: '{"tag":"migrated","ids":["100000000000000002","100000000000000003","100000000000000004"]}',
      });
      expect(JSON.parse((await get('/api/id/segment/migrated/range?count=5')).text)).toEqual({
        tag: 'migrated',
        count: 5,
        validMs: 300_000,
        ranges: [{ start: '100000000000000005', end: '100000000000000009' }],
      });
      expect(await get('/api/segment/get/migrated')).toEqual({ status: 200, text: '100000000000000010' });

      const client = new LeafClient({ urls: [server.url] });
      try {
        const id = await client.nextId('migrated');
        expect(id).toBe(100000000000000011n);
        expect(await client.take('migrated', 3)).toEqual([
          100000000000000012n,
          100000000000000013n,
          100000000000000014n,
        ]);
      } finally {
        client.close();
      }

      // The console's view of the row and of this node's segment: decimal strings, exact.
      const detail = await (
        await fetch(`${server.url}/api/admin/tags/migrated`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).json();
      expect(detail.tag.maxId).toMatch(/^1000000000000\d{5}$/);
      expect(detail.tag.engine.current.start).toMatch(/^1000000000000\d{5}$/);
    });

    it('max_id up to 2^63−1 is accepted; past it, or not an integer, is a 400 JSON error naming the field', async () => {
      for (const maxId of [
        '9223372036854775808',
        '18446744073709551616',
        '1e19',
        '12.5',
        Number.MAX_SAFE_INTEGER + 2,
        1e30,
        -1,
      ]) {
        const r = await admin('/api/admin/tags', 'POST', { bizTag: 'too-big', step: 10, maxId });
        expect(r.status, JSON.stringify(maxId)).toBe(400);
        const body = await r.json();
        expect(body.error.code).toBe('validation_failed');
        expect(body.error.fields.maxId).toContain('9223372036854775807');
      }
      // A JSON number too large for any integer type, in the raw body: still a 400, never a 500.
      const raw = await admin(
        '/api/admin/tags',
        'POST',
        '{"bizTag":"too-big","step":10,"maxId":92233720368547758080000}',
      );
      expect(raw.status).toBe(400);
      const patch = await admin('/api/admin/tags/migrated', 'PATCH', { maxId: '9223372036854775808' });
      expect(patch.status).toBe(400);
      expect((await patch.json()).error.fields.maxId).toContain('9223372036854775807');
    });

    it('near 2^63−1: serves what fits exactly, then 503 id_space_exhausted naming 2^63−1', async () => {
      // Claims of 10, then 20 (the step doubles when a segment lasts under 15 min): up to 2^63−1 exactly.
      const created = await admin('/api/admin/tags', 'POST', {
        bizTag: 'last',
        step: 10,
        maxId: '9223372036854775777',
      });
      expect(created.status).toBe(201);
      const ids = JSON.parse((await get('/api/id/segment/last?count=30')).text).ids;
      expect(ids[0]).toBe('9223372036854775778');
      expect(ids[29]).toBe('9223372036854775807');
      const refused = await get('/api/id/segment/last');
      expect(refused.status).toBe(503);
      const error = JSON.parse(refused.text).error;
      expect(error.code).toBe('id_space_exhausted');
      expect(error.message).toContain('2^63−1');
    });
  });
}
