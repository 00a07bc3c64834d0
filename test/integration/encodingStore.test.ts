/**
 * leaf_encoding on MariaDB, PostgreSQL and SQLite: an opaque tag's encoding written with its creation (and its
 * tag.encoding audit entry), read back per tag and as a list, kept through deletion, binding every re-creation of the
 * name — the same encoding and key only — and refused beside strict ordering; concurrent creations of one name under
 * two encodings leave one tag with one encoding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeafStore } from '../../lib/store/leafStore';
import type { AuditStamp } from '../../lib/audit';
import { codeOf } from '../support/outcomes';
import { type RawStore, rawStoreOpener } from '../support/rawStores';

const openStore = rawStoreOpener('leaf-it-encoding-');
const opaque = { encoding: 'opaque' as const, keyId: '0123456789abcdef' };
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
    expect(await s.tags.getEncoding('enc_a')).toEqual(opaque);
    expect(await s.tags.getEncoding('enc_plain')).toBeNull();
    expect(await s.tags.getEncoding('never')).toBeNull();
    expect((await s.tags.listEncodings()).get('enc_a')).toEqual(opaque);
    const audit = await s.audit.listAudit({ limit: 10, bizTag: 'enc_a' });
    expect(audit.map((e) => [e.action, e.after])).toContainEqual(['tag.encoding', opaque]);
  });

  it('keeps it through deletion: re-created plain or under another key is refused, the same one continues', async () => {
    await s.tags.allocate('enc_a');
    await s.tags.deleteTag('enc_a');
    expect(await s.tags.getEncoding('enc_a')).toEqual(opaque);
    expect(await codeOf(() => s.tags.createTag({ bizTag: 'enc_a', step: 10 }))).toBe('encoding_conflict');
    expect(
      await codeOf(() =>
        s.tags.createTag({ bizTag: 'enc_a', step: 10, encoding: { ...opaque, keyId: 'ffffffffffffffff' } }),
      ),
    ).toBe('encoding_conflict');
    expect(await s.tags.getTag('enc_a')).toBeUndefined(); // the refusals left nothing behind
    const again = await s.tags.createTag({ bizTag: 'enc_a', step: 10, encoding: opaque });
    expect(BigInt(again.maxId)).toBeGreaterThan(1n); // above the tombstone
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
      expect(await s.tags.getEncoding(bizTag)).toEqual(won === 0 ? null : opaque);
    }
  });
});
