/**
 * Opaque keys: LEAF_OPAQUE_KEY(_FILE) and LEAF_OPAQUE_RETIRED_KEYS_FILE read into a ring, and the start check of
 * lib/opaque/fleetKey.ts through a rotation — the fleet's record moves forward only from a node holding it, and no
 * node starts without every key a tag was created under. @leaf-ts/embedded takes the same ring as options.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLeaf } from '@/lib/embedded';
import { ensureFleetOpaqueKeys } from '@/lib/opaque/fleetKey';
import { opaqueKeyFromText } from '@/lib/opaque/key';
import { readOpaqueKeys } from '@/lib/opaque/keyConfig';
import { OpaqueKeyRing } from '@/lib/opaque/keyRing';
import { SqliteStore } from '@/lib/store/sqlite';

const K1 = 'opaque-rotation-unit-key-one-0123456789abcdef';
const K2 = 'opaque-rotation-unit-key-two-0123456789abcdef';
const K3 = 'opaque-rotation-unit-key-three-0123456789abcd';
const [k1, k2, k3] = [K1, K2, K3].map(opaqueKeyFromText) as [
  ReturnType<typeof opaqueKeyFromText>,
  ReturnType<typeof opaqueKeyFromText>,
  ReturnType<typeof opaqueKeyFromText>,
];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-opaque-keys-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect((error as { code?: string }).code).toBe('invalid_config');
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('reading the keys', () => {
  it('the current key and the retired ones, a key per line, blank lines skipped', () => {
    const ring = readOpaqueKeys({
      LEAF_OPAQUE_KEY_FILE: file('current', `${K2}\n`),
      LEAF_OPAQUE_RETIRED_KEYS_FILE: file('retired', `\n${K1}\n\n${K3}\n`),
    });
    expect(ring?.current.id).toBe(k2.id);
    expect(ring?.ids).toEqual([k2.id, k1.id, k3.id]);
    expect(ring?.key(k1.id)).toBe(ring?.retired[0]);
    expect(readOpaqueKeys({})).toBeNull();
  });

  it('refuses, naming the line and never the secret: a short key, a repeated one, retired keys alone', () => {
    const short = refusal(() =>
      readOpaqueKeys({ LEAF_OPAQUE_KEY: K2, LEAF_OPAQUE_RETIRED_KEYS_FILE: file('short', `${K1}\nshort-secret\n`) }),
    );
    expect(short).toMatch(/line 2 must hold at least 32 bytes of secret \(got 12\)/);
    expect(short).not.toContain('short-secret');
    expect(
      refusal(() => readOpaqueKeys({ LEAF_OPAQUE_KEY: K1, LEAF_OPAQUE_RETIRED_KEYS_FILE: file('same', K1) })),
    ).toContain(`holds the current key (${k1.id}) too`);
    expect(
      refusal(() =>
        readOpaqueKeys({ LEAF_OPAQUE_KEY: K2, LEAF_OPAQUE_RETIRED_KEYS_FILE: file('twice', `${K1}\n${K1}`) }),
      ),
    ).toContain('given twice');
    expect(refusal(() => readOpaqueKeys({ LEAF_OPAQUE_RETIRED_KEYS_FILE: file('alone', K1) }))).toContain(
      'needs LEAF_OPAQUE_KEY',
    );
    expect(
      refusal(() => readOpaqueKeys({ LEAF_OPAQUE_KEY: K1, LEAF_OPAQUE_RETIRED_KEYS_FILE: '/nonexistent' })),
    ).toContain('cannot be read (ENOENT)');
  });
});

describe('the start check through a rotation', () => {
  const db = path.join(dir, 'fleet.db');
  const store = new SqliteStore({ file: db });
  afterAll(() => store.close());
  const start = (ring: OpaqueKeyRing, nodeId = 'n') =>
    ensureFleetOpaqueKeys({ settings: store.settings, tags: store.tags, ring, nodeId });
  const refused = async (ring: OpaqueKeyRing): Promise<string> => {
    const error = await start(ring).then(
      () => null,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(error?.code).toBe('invalid_config');
    return error?.message ?? '';
  };
  const recorded = async () => JSON.parse((await store.settings.pinSetting('opaque_key', '{}', 'probe')).value).keyId;

  it('records the first key; another key alone is refused; the new key with the old retired moves the record', async () => {
    await start(new OpaqueKeyRing(k1), 'first');
    expect(await recorded()).toBe(k1.id);
    await store.tags.createTag({
      bizTag: 'old_tag',
      step: 10,
      encoding: { encoding: 'opaque', keyId: k1.id, heldKeyIds: [k1.id] },
    });

    expect(await refused(new OpaqueKeyRing(k2))).toMatch(
      new RegExp(`fingerprint ${k2.id}, and the fleet's key has fingerprint ${k1.id}, recorded by first at `),
    );
    expect(await recorded()).toBe(k1.id); // a refused node changes nothing

    await start(new OpaqueKeyRing(k2, [k1]), 'rotated');
    expect(await recorded()).toBe(k2.id);
    await start(new OpaqueKeyRing(k2, [k1]), 'rotated-again'); // idempotent
  });

  it('after it: the old key alone is refused, and so is the new key without the one old tags use', async () => {
    expect(await refused(new OpaqueKeyRing(k1))).toContain(`the fleet's key has fingerprint ${k2.id}`);
    expect(await refused(new OpaqueKeyRing(k2))).toContain(`created under key ${k1.id} (tags old_tag)`);
    // A second rotation keeps every key in use: k3 current, k2 and k1 retired.
    await start(new OpaqueKeyRing(k3, [k2, k1]));
    expect(await recorded()).toBe(k3.id);
    expect(await refused(new OpaqueKeyRing(k3, [k2]))).toContain(`created under key ${k1.id}`);
  });
});

describe('@leaf-ts/embedded through a rotation', () => {
  it('keeps an old tag under its key with opaqueRetiredKeys, refuses the old key alone afterwards', async () => {
    const db = path.join(dir, 'embedded.db');
    const store = new SqliteStore({ file: db });
    await store.tags.createTag({
      bizTag: 'sec',
      step: 20,
      encoding: { encoding: 'opaque', keyId: k1.id, heldKeyIds: [k1.id] },
    });
    await store.close();
    const before = await createLeaf({ databaseUrl: `file:${db}`, opaqueKey: K1, name: 'e1' });
    const first = await before.take('sec', 30);
    await before.close();
    const after = await createLeaf({ databaseUrl: `file:${db}`, opaqueKey: K2, opaqueRetiredKeys: [K1], name: 'e2' });
    const second = await after.take('sec', 30);
    await after.close();
    const seq = [...first, ...second].map((id) => k1.cipher(63, 'sec').decrypt(id));
    expect(new Set(seq).size).toBe(60);
    expect(seq.slice(0, 30)).toEqual(seq.slice(0, 30).map((_, k) => (seq[0] as bigint) + BigInt(k)));
    const error = await createLeaf({ databaseUrl: `file:${db}`, opaqueKey: K1, name: 'e3' }).then(
      (leaf) => leaf.close().then(() => null),
      (e: unknown) => e as Error & { code?: string },
    );
    expect(error?.code).toBe('invalid_config');
    await expect(createLeaf({ databaseUrl: `file:${db}`, opaqueRetiredKeys: [K1] })).rejects.toThrow(
      'opaqueRetiredKeys needs opaqueKey',
    );
  });
});
