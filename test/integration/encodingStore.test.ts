/**
 * leaf_encoding on MariaDB, PostgreSQL and SQLite: an opaque tag's encoding written with its creation (and its
 * tag.encoding audit entry), read back per tag and as a list, kept through deletion, binding every re-creation of the
 * name — the same encoding, by a node holding its key — and refused beside strict ordering; concurrent creations of one name under
 * two encodings leave one tag with one encoding. leaf_setting's compare-and-set, which a key rotation moves the fleet's
 * key record with.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeafStore } from '../../lib/store/leafStore';
import type { AuditStamp } from '../../lib/audit';
import { ensureFleetOpaqueKeys } from '../../lib/opaque/fleetKey';
import { type OpaqueKey, opaqueKeyFromText } from '../../lib/opaque/key';
import { OpaqueKeyRing } from '../../lib/opaque/keyRing';
import { codeOf } from '../support/outcomes';
import { type RawStore, rawStoreOpener } from '../support/rawStores';

const openStore = rawStoreOpener('leaf-it-encoding-');
const recorded = { encoding: 'opaque' as const, keyId: '0123456789abcdef' };
const opaque = { ...recorded, heldKeyIds: [recorded.keyId] };
/** A node after a rotation: another current key, the old one retired. */
const rotated = { ...recorded, keyId: 'ffffffffffffffff', heldKeyIds: ['ffffffffffffffff', recorded.keyId] };
const stamp: AuditStamp = { actor: 'token:test', address: '127.0.0.1', nodeId: 'it', at: 1 };

describe.each(['mysql', 'postgres', 'sqlite'] as const)('%s store: tag encodings', (dialect) => {
  let h: RawStore;
  let s: LeafStore;
  beforeAll(async () => {
    h = await openStore(dialect);
    s = h.store;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('writes the encoding with the tag and its audit entry; plain tags have none', async () => {
    await s.tags.createTag({ bizTag: 'enc_a', step: 10, encoding: opaque }, stamp);
    await s.tags.createTag({ bizTag: 'enc_plain', step: 10 });
    expect(await s.tags.getEncoding('enc_a')).toEqual(recorded);
    expect(await s.tags.getEncoding('enc_plain')).toBeNull();
    expect(await s.tags.getEncoding('never')).toBeNull();
    expect((await s.tags.listEncodings()).get('enc_a')).toEqual(recorded);
    const audit = await s.audit.listAudit({ limit: 10, bizTag: 'enc_a' });
    expect(audit.map((e) => [e.action, e.after])).toContainEqual(['tag.encoding', recorded]);
  });

  it('keeps it through deletion: re-created plain or under another key is refused, the same one continues', async () => {
    await s.tags.allocate('enc_a');
    await s.tags.deleteTag('enc_a');
    expect(await s.tags.getEncoding('enc_a')).toEqual(recorded);
    expect(await codeOf(() => s.tags.createTag({ bizTag: 'enc_a', step: 10 }))).toBe('encoding_conflict');
    expect(
      await codeOf(() =>
        s.tags.createTag({
          bizTag: 'enc_a',
          step: 10,
          encoding: { ...recorded, keyId: 'ffffffffffffffff', heldKeyIds: ['ffffffffffffffff'] },
        }),
      ),
    ).toBe('encoding_conflict');
    expect(await s.tags.getTag('enc_a')).toBeUndefined(); // the refusals left nothing behind
    const again = await s.tags.createTag({ bizTag: 'enc_a', step: 10, encoding: opaque });
    expect(BigInt(again.maxId)).toBeGreaterThan(1n); // above the tombstone
    // After a rotation: a node holding the old key as a retired one re-creates it, and it keeps the old key.
    await s.tags.deleteTag('enc_a');
    await s.tags.createTag({ bizTag: 'enc_a', step: 10, encoding: rotated });
    expect(await s.tags.getEncoding('enc_a')).toEqual(recorded);
    await s.tags.deleteTag('enc_plain');
    expect(await codeOf(() => s.tags.createTag({ bizTag: 'enc_plain', step: 10, encoding: opaque }))).toBe(
      'encoding_conflict',
    );
  });

  it('refuses opaque and strict together', async () => {
    expect(
      await codeOf(() => s.tags.createTag({ bizTag: 'enc_s', step: 10, encoding: opaque, ordering: 'strict' })),
    ).toBe('encoding_conflict');
    expect(await s.tags.getTag('enc_s')).toBeUndefined();
  });

  it('two creations of one name at once, plain and opaque: one tag, and its encoding is the one that won', async () => {
    for (let round = 0; round < 5; round++) {
      const bizTag = `enc_race_${round}`;
      const outcomes = await Promise.allSettled([
        s.tags.createTag({ bizTag, step: 10 }),
        s.tags.createTag({ bizTag, step: 10, encoding: opaque }),
      ]);
      const won = outcomes.findIndex((o) => o.status === 'fulfilled');
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(await s.tags.getEncoding(bizTag)).toEqual(won === 0 ? null : recorded);
    }
  });

  it('the fleet key record moves only from the value it holds (compare-and-set), and the start check uses it', async () => {
    const name = `cas_${dialect}`;
    expect((await s.settings.pinSetting(name, '"a"', 'n1')).value).toBe('"a"');
    expect(await s.settings.replaceSetting(name, '"b"', '"c"', 'n2')).toBe(false);
    expect((await s.settings.pinSetting(name, '"x"', 'n3')).value).toBe('"a"');
    expect(await s.settings.replaceSetting(name, '"a"', '"c"', 'n2')).toBe(true);
    expect(await s.settings.pinSetting(name, '"x"', 'n3')).toMatchObject({ value: '"c"', setBy: 'n2' });

    const [k1, k2] = ['integration-key-one-0123456789abcdef-xx', 'integration-key-two-0123456789abcdef-xx'].map(
      opaqueKeyFromText,
    ) as [OpaqueKey, OpaqueKey];
    const start = (ring: OpaqueKeyRing) =>
      ensureFleetOpaqueKeys({
        settings: s.settings,
        tags: { listEncodings: async () => new Map() },
        ring,
        nodeId: 'it',
      });
    await start(new OpaqueKeyRing(k1));
    await expect(start(new OpaqueKeyRing(k2))).rejects.toThrow(`the fleet's key has fingerprint ${k1.id}`);
    await start(new OpaqueKeyRing(k2, [k1]));
    await expect(start(new OpaqueKeyRing(k1))).rejects.toThrow(`the fleet's key has fingerprint ${k2.id}`);
  });
});
