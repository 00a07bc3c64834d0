/**
 * @leaf-ts/embedded on an opaque tag: with the fleet's key it permutes as the nodes do (each ID the key's FF1 of the
 * sequence); without it, or with another, it refuses and never hands out an unpermuted ID.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type EmbeddedLeaf, createLeaf } from '@/lib/embedded';
import { opaqueKeyFromText } from '@/lib/opaque/key';
import { SqliteStore } from '@/lib/store/sqlite';
import { codeOf } from '../support/outcomes';

const SECRET = 'embedded-opaque-unit-key-0123456789abcdef';
const key = opaqueKeyFromText(SECRET);
const dirs: string[] = [];
const leaves: EmbeddedLeaf[] = [];

async function database(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-embedded-opaque-'));
  dirs.push(dir);
  const file = path.join(dir, 'leaf.db');
  const store = new SqliteStore({ file });
  await store.tags.createTag({
    bizTag: 'sec',
    step: 50,
    encoding: { encoding: 'opaque', keyId: key.id, heldKeyIds: [key.id] },
  });
  await store.tags.createTag({ bizTag: 'plain', step: 50 });
  await store.tags.createTag({
    bizTag: 'js',
    step: 50,
    encoding: { encoding: 'opaque-js-safe', keyId: key.id, heldKeyIds: [key.id] },
  });
  await store.close();
  return file;
}

async function open(file: string, opaqueKey?: string): Promise<EmbeddedLeaf> {
  const leaf = await createLeaf({ databaseUrl: `file:${file}`, opaqueKey, name: 'embedded-opaque' });
  leaves.push(leaf);
  return leaf;
}

afterEach(async () => {
  for (const leaf of leaves.splice(0)) await leaf.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('@leaf-ts/embedded and opaque tags', () => {
  it('permutes with the fleet key on every call: nextId, the handle and take; the sequence has no gap or repeat', async () => {
    const leaf = await open(await database(), SECRET);
    const ids: bigint[] = [await leaf.nextId('sec')];
    for (let i = 0; i < 120; i++) ids.push(await leaf.nextId('sec'));
    const handle = leaf.tag('sec');
    ids.push(await handle.next());
    ids.push(...(await leaf.take('sec', 200)));
    ids.push(...(await handle.take(3)));
    expect(new Set(ids).size).toBe(ids.length);
    const seq = ids.map((id) => key.cipher(63, 'sec').decrypt(id));
    expect(seq).toEqual(seq.map((_, k) => (seq[0] as bigint) + BigInt(k)));
    expect(ids.filter((id, k) => id === seq[k])).toEqual([]);
    // A plain tag beside it is unchanged.
    expect(await leaf.nextId('plain')).toBe(2n);
    const js = await leaf.take('js', 100);
    expect(js.every((id) => id <= BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
    expect(new Set(js.map((id) => key.cipher(53, 'js').decrypt(id))).size).toBe(100);
  });

  it('without the key it refuses the opaque tag, every call, and still serves plain tags', async () => {
    const leaf = await open(await database());
    expect(await codeOf(() => leaf.nextId('sec'))).toBe('opaque_key_missing');
    expect(await codeOf(() => leaf.take('sec', 5))).toBe('opaque_key_missing');
    expect(await codeOf(() => leaf.nextId('sec'))).toBe('opaque_key_missing');
    expect(await leaf.nextId('plain')).toBe(2n);
  });

  it('another key than the fleet recorded is refused at open; a short one at once', async () => {
    const file = await database();
    await open(file, SECRET); // records the fleet's key
    expect(await codeOf(() => open(file, 'another-secret-of-at-least-32-bytes-xxxxx'))).toBe('invalid_config');
    expect(await codeOf(() => open(file, 'short'))).toBe('invalid_config');
  });
});
