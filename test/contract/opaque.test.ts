/**
 * Opaque tags through a real server: every ID path hands out permuted IDs only, each one the key's FF1 permutation of
 * the plain sequence the engine would have served; ranges and strictness are refused; the encoding outlives deletion;
 * a key rotation keeps old tags under the old key and gives new tags the new one.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../tools/harness';
import { opaqueKeyFromText } from '../../lib/opaque/key';
import { decodeId } from '../../lib/opaque/shortForms';
import { type ServerProcess, startServer } from '../support/serverProcess';
import { clientGet } from '../support/clientIds';
import { LeafClient } from '../../lib/client';

const ADMIN = 'opaque-contract-admin-token';
const SECRET = 'opaque-contract-key-0123456789abcdef-0123456789';
const key = opaqueKeyFromText(SECRET);

describe('Opaque tags', () => {
  let dir: string;
  let server: ServerProcess;
  const get = (p: string) => clientGet(`${server.url}${p}`);
  const idsOf = async (p: string): Promise<string[]> => {
    const r = await get(p);
    expect(r.status, p).toBe(200);
    const body = JSON.parse(r.text) as { id?: string; ids?: string[] };
    return body.ids ?? [body.id as string];
  };
  /** The engine's ID behind an opaque one, as the key holder computes it. */
  const sequenceOf = (id: string, bits: 63 | 53 = 63) =>
    key.cipher(bits, bits === 63 ? 'sec' : 'js').decrypt(BigInt(id));

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-opaque-'));
    server = await startServer({
      LEAF_ADMIN_TOKEN: ADMIN,
      LEAF_OPAQUE_KEY: SECRET,
      LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
    });
    const created = await server.api('/api/admin/tags', {
      method: 'POST',
      body: { bizTag: 'sec', step: 100, encoding: 'opaque' },
    });
    expect(created.status).toBe(201);
    const view = (await created.json()).tag;
    expect(view).toMatchObject({ bizTag: 'sec', encoding: 'opaque', keyId: key.id });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('every route hands out permuted IDs only: single, batch, Leaf text, owner; unique, each the next of the sequence', async () => {
    const served: string[] = [];
    for (let i = 0; i < 150; i++) served.push(...(await idsOf('/api/id/segment/sec')));
    served.push(...(await idsOf('/api/id/segment/sec?count=1000')));
    for (let i = 0; i < 20; i++) {
      const r = await get('/api/segment/get/sec');
      expect(r.status).toBe(200);
      served.push(r.text);
    }
    served.push(...(await idsOf('/api/id/owner/sec')));
    served.push(...(await idsOf('/api/id/owner/sec?count=300')));
    expect(new Set(served).size).toBe(served.length);
    const sequence = served.map((id) => sequenceOf(id));
    // The permutation hides the sequence (no served ID is its own sequence number) …
    expect(served.filter((id, k) => BigInt(id) === sequence[k]).length).toBe(0);
    // … and inverts to exactly the IDs a plain tag would have served, in order: nothing skipped, nothing twice.
    const first = sequence[0] as bigint;
    expect(sequence).toEqual(sequence.map((_, k) => first + BigInt(k)));
    // Spread over the 63-bit space, not near the sequence.
    expect(served.filter((id) => BigInt(id) < 2n ** 40n).length).toBe(0);
  });

  it('@leaf-ts/client hands out the permuted IDs, fetched in batches (its lease refused), beside the routes', async () => {
    const client = new LeafClient({ urls: [server.url] });
    try {
      const mine: bigint[] = [];
      for (let i = 0; i < 3_000; i++) mine.push(await client.nextId('sec'));
      mine.push(...(await client.take('sec', 2_500)));
      const routes = (await idsOf('/api/id/segment/sec?count=500')).map(BigInt);
      const all = mine.concat(routes);
      expect(new Set(all).size).toBe(all.length);
      const seq = all.map((id) => key.cipher(63, 'sec').decrypt(id));
      expect(new Set(seq).size).toBe(all.length);
      expect(mine.filter((id, k) => id === seq[k])).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('refuses a range lease and an owner’s runs, which would hand out unpermuted runs', async () => {
    for (const p of ['/api/id/segment/sec/range?count=10', '/api/id/owner/sec/runs?count=10']) {
      const r = await get(p);
      expect(r.status, p).toBe(409);
      expect(JSON.parse(r.text).error.code).toBe('opaque_tag_range');
    }
  });

  it('short forms: ?format=base62 and base32 decode to the decimal IDs; a bad format takes no ID', async () => {
    const [before] = await idsOf('/api/id/segment/sec');
    const [b62] = await idsOf('/api/id/segment/sec?format=base62');
    const b32 = await idsOf('/api/id/segment/sec?count=3&format=base32');
    const bad = await get('/api/id/segment/sec?format=hex');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error.code).toBe('invalid_request');
    const [after] = await idsOf('/api/id/segment/sec');
    const values = [before as string, decodeId(b62 as string, 'base62').toString()]
      .concat(b32.map((t) => decodeId(t, 'base32').toString()))
      .concat([after as string]);
    const seq = values.map((v) => sequenceOf(v));
    expect(seq).toEqual(seq.map((_, k) => (seq[0] as bigint) + BigInt(k)));
    const text = await get('/api/segment/get/sec?format=base62');
    expect(text.text).toMatch(/^[0-9A-Za-z]{1,11}$/);
  });

  it('the decode route gives an opaque ID’s sequence number, from any form; a wrong one is a 400', async () => {
    const [id] = await idsOf('/api/id/segment/sec');
    const r = await server.api(`/api/admin/tags/sec/decode/${id}`);
    expect(r.status).toBe(200);
    const d = await r.json();
    expect(d).toMatchObject({
      tag: 'sec',
      encoding: 'opaque',
      keyId: key.id,
      value: id,
      sequence: String(sequenceOf(id as string)),
      claimed: true,
      region: null,
    });
    const again = await (await server.api(`/api/admin/tags/sec/decode/${d.forms.base32}?format=base32`)).json();
    expect(again.sequence).toBe(d.sequence);
    const typo = await server.api(`/api/admin/tags/sec/decode/${d.forms.base32.slice(0, -2)}ZZ?format=base32`);
    expect(typo.status).toBe(400);
    expect((await typo.json()).error.code).toBe('invalid_id');
    expect((await server.api('/api/admin/tags/sec/decode/12x')).status).toBe(400);
    expect((await server.api('/api/admin/tags/none/decode/12')).status).toBe(404);
    expect((await server.api(`/api/admin/tags/sec/decode/${id}`, { auth: null })).status).toBe(401);
  });

  it('opaque-js-safe: every ID a safe JS number; strict and opaque refused together', async () => {
    const made = await server.api('/api/admin/tags', {
      method: 'POST',
      body: { bizTag: 'js', step: 10, encoding: 'opaque-js-safe' },
    });
    expect(made.status).toBe(201);
    const ids = await idsOf('/api/id/segment/js?count=500');
    expect(ids.every((id) => BigInt(id) <= BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
    expect(new Set(ids.map((id) => sequenceOf(id, 53))).size).toBe(500);

    const both = await server.api('/api/admin/tags', {
      method: 'POST',
      body: { bizTag: 'both', step: 10, encoding: 'opaque', ordering: 'strict' },
    });
    expect(both.status).toBe(409);
    expect((await both.json()).error.code).toBe('encoding_conflict');
    const later = await server.api('/api/admin/tags/sec', { method: 'PATCH', body: { ordering: 'strict' } });
    expect(later.status).toBe(409);
    expect((await later.json()).error.code).toBe('encoding_conflict');
    // Leaf semantics mean Java Leaf nodes may serve the fleet: they would hand out an opaque tag's IDs unpermuted.
    const leafTag = await server.api('/api/admin/tags/sec', { method: 'PATCH', body: { semantics: 'leaf' } });
    expect(leafTag.status).toBe(409);
    expect((await leafTag.json()).error.message).toMatch(/Java Leaf node would hand out their IDs unpermuted/);
    const leafFleet = await server.api('/api/admin/semantics', { method: 'PUT', body: { semantics: 'leaf' } });
    expect(leafFleet.status).toBe(409);
    expect((await (await server.api('/api/admin/semantics')).json()).default).toBe('leaf-ts');
  });

  it('a name keeps its encoding through deletion: re-created plain is refused, re-created opaque continues above', async () => {
    const [last] = await idsOf('/api/id/segment/sec');
    const gone = await server.api('/api/admin/tags/sec', { method: 'DELETE', body: { confirm: 'sec' } });
    expect(gone.status).toBe(200);
    const plain = await server.api('/api/admin/tags', { method: 'POST', body: { bizTag: 'sec', step: 100 } });
    expect(plain.status).toBe(409);
    expect((await plain.json()).error.code).toBe('encoding_conflict');
    const opaque = await server.api('/api/admin/tags', {
      method: 'POST',
      body: { bizTag: 'sec', step: 100, encoding: 'opaque' },
    });
    expect(opaque.status).toBe(201);
    const [next] = await idsOf('/api/id/segment/sec');
    expect(sequenceOf(next as string) > sequenceOf(last as string)).toBe(true);

    // And the other way: a plain name deleted cannot come back opaque.
    await server.api('/api/admin/tags/demo', { method: 'DELETE', body: { confirm: 'demo' } });
    const turned = await server.api('/api/admin/tags', {
      method: 'POST',
      body: { bizTag: 'demo', step: 100, encoding: 'opaque' },
    });
    expect(turned.status).toBe(409);
    expect((await turned.json()).error.code).toBe('encoding_conflict');
  });

  it('the audit trail records the encoding with the creation', async () => {
    const audit = await (await server.api('/api/admin/audit?tag=js')).json();
    const entry = audit.entries.find((e: { action: string }) => e.action === 'tag.encoding');
    expect(entry?.after).toEqual({ encoding: 'opaque-js-safe', keyId: key.id });
  });

  it('a node with another key refuses to start (exit 78, one line); one without a key refuses the tag, never serves it plain', async () => {
    const file = path.join(dir, 'leaf.db');
    const other = startRefused({
      LEAF_SQLITE_FILE: file,
      LEAF_OPAQUE_KEY: 'another-key-of-at-least-32-bytes-xxxxxxxxxx',
    });
    expect(other.status).toBe(78);
    expect(other.refusal).toMatch(/LEAF_OPAQUE_KEY has fingerprint [0-9a-f]{16}, and the fleet's key has fingerprint /);
    expect(other.refusal).toContain(key.id);
    // The secret itself is never printed, by either process.
    expect(other.output + server.logs()).not.toContain('another-key');
    expect(server.logs()).not.toContain(SECRET);

    const keyless = await startServer({ LEAF_SQLITE_FILE: file, LEAF_ADMIN_TOKEN: ADMIN });
    try {
      const r = await clientGet(`${keyless.url}/api/id/segment/sec`);
      expect(r.status).toBe(503);
      expect(JSON.parse(r.text).error.code).toBe('opaque_key_missing');
      const b = await clientGet(`${keyless.url}/api/id/segment/sec?count=10`);
      expect(b.status).toBe(503);
      const create = await keyless.api('/api/admin/tags', {
        method: 'POST',
        body: { bizTag: 'nokey', step: 10, encoding: 'opaque' },
      });
      expect(create.status).toBe(400);
      expect((await create.json()).error.fields.encoding).toMatch(/LEAF_OPAQUE_KEY/);
    } finally {
      await keyless.stop();
    }
  }, 90_000);

  it('rotation: a node with a new key and the old one retired keeps the old tags’ permutation and gives new tags the new key', async () => {
    const file = path.join(dir, 'leaf.db');
    const NEW = 'opaque-contract-rotated-key-abcdef0123456789-new';
    const newKey = opaqueKeyFromText(NEW);
    const retired = path.join(dir, 'retired-keys');
    fs.writeFileSync(retired, `${SECRET}\n`, { mode: 0o600 });
    // A rolling rotation: the old node keeps serving beside the rotated one, on one database.
    const rotated = await startServer({
      LEAF_SQLITE_FILE: file,
      LEAF_ADMIN_TOKEN: ADMIN,
      LEAF_OPAQUE_KEY: NEW,
      LEAF_OPAQUE_RETIRED_KEYS_FILE: retired,
    });
    try {
      const fromRotated = await takeIds(rotated.url, '/api/id/segment/sec?count=150');
      const fromOld = await idsOf('/api/id/segment/sec?count=150');
      const ids = [...fromRotated, ...fromOld];
      expect(new Set(ids).size).toBe(300);
      expect(new Set(ids.map((id) => sequenceOf(id))).size).toBe(300); // the old key's permutation, on both nodes
      const decoded = await (await rotated.api(`/api/admin/tags/sec/decode/${fromRotated[0]}`)).json();
      expect(decoded).toMatchObject({ keyId: key.id, sequence: String(sequenceOf(fromRotated[0] as string)) });

      const created = await rotated.api('/api/admin/tags', {
        method: 'POST',
        body: { bizTag: 'rot_new', step: 10, encoding: 'opaque' },
      });
      expect((await created.json()).tag).toMatchObject({ encoding: 'opaque', keyId: newKey.id });
      const fresh = await takeIds(rotated.url, '/api/id/segment/rot_new?count=20');
      const freshSeq = fresh.map((id) => newKey.cipher(63, 'rot_new').decrypt(BigInt(id)));
      expect(freshSeq).toEqual(freshSeq.map((_, k) => (freshSeq[0] as bigint) + BigInt(k)));
      // The old node, which does not hold the new key, refuses the new tag rather than serve it unpermuted.
      const refused = await get('/api/id/segment/rot_new');
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.text).error.code).toBe('opaque_key_missing');
    } finally {
      await rotated.stop();
    }

    // Once a node has moved the fleet to the new key, the old key alone cannot start again ...
    const old = startRefused({ LEAF_SQLITE_FILE: file, LEAF_OPAQUE_KEY: SECRET });
    expect(old.status).toBe(78);
    expect(old.refusal).toContain(`the fleet's key has fingerprint ${newKey.id}`);
    expect(old.refusal).toContain('LEAF_OPAQUE_RETIRED_KEYS_FILE');
    // ... nor the new key without the old one, which the tags created before still use.
    const forgetful = startRefused({ LEAF_SQLITE_FILE: file, LEAF_OPAQUE_KEY: NEW });
    expect(forgetful.status).toBe(78);
    expect(forgetful.refusal).toMatch(new RegExp(`created under key ${key.id} \\(tags (sec, js|js, sec)`));
    expect(old.output + forgetful.output).not.toContain(SECRET);
    expect(forgetful.output).not.toContain(NEW);
  }, 90_000);
});

/** A server start expected to fail: its exit status, its one refusal line and everything it printed. */
function startRefused(env: Record<string, string>): { status: number | null; refusal: string; output: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_ENV: 'production', PORT: '0', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const refusals = run.stderr.split('\n').filter((l) => l.startsWith('leaf-ts: cannot start:'));
  expect(refusals).toHaveLength(1);
  return { status: run.status, refusal: refusals[0] as string, output: run.stdout + run.stderr };
}

async function takeIds(url: string, route: string): Promise<string[]> {
  const r = await clientGet(`${url}${route}`);
  expect(r.status, route).toBe(200);
  const body = JSON.parse(r.text) as { id?: string; ids?: string[] };
  return body.ids ?? [body.id as string];
}
