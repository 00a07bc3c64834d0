/**
 * leaf_semantics on MysqlStore (real MariaDB), PostgresStore (real PostgreSQL) and SqliteStore (real file), the same cases: the claim
 * reports its tag's effective semantics; switches raise max_id by one exactly where a tag goes leaf-ts → leaf
 * (rows and tombstones of the tags that follow), write their audit entry, and leave everything else alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import type { AuditStamp } from '../../lib/audit';
import type { LeafStore } from '../../lib/store/leafStore';
import type { TestDatabase } from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, tempDir } from '../support/context';

let tmp: TempDir;
const dbs: TestDatabase[] = [];
const stores: LeafStore[] = [];
const stamp: AuditStamp = { actor: 'token:abcdef12', address: '127.0.0.1', nodeId: 'n1', at: 1_800_000_000_000 };

beforeAll(() => {
  tmp = tempDir('leaf-it-semantics-');
});
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
  for (const d of dbs) await d.drop().catch(() => undefined);
  tmp?.remove();
});

const factories: Record<'mysql' | 'postgres' | 'sqlite', () => Promise<LeafStore>> = {
  async postgres() {
    const db = await freshPgDatabase();
    dbs.push(db);
    const store = await PostgresStore.open({ url: db.url });
    stores.push(store);
    return store;
  },
  async mysql() {
    const db = await freshMysqlDatabase();
    dbs.push(db);
    const store = await MysqlStore.open({ url: db.url });
    stores.push(store);
    return store;
  },
  async sqlite() {
    const store = new SqliteStore({ file: tmp.file(`s-${stores.length}.db`) });
    stores.push(store);
    return store;
  },
};

describe.each(['mysql', 'postgres', 'sqlite'] as const)('%s: claim semantics', (dialect) => {
  it('claims carry the effective semantics; switches skip one ID exactly where a tag goes leaf-ts → leaf', async () => {
    const store = await factories[dialect]();
    for (const bizTag of ['a', 'b', 'gone']) await store.tags.createTag({ bizTag, step: 10, maxId: 100 });
    await store.tags.deleteTag('gone');
    expect(await store.semantics.getSemantics()).toEqual({ default: 'leaf-ts', tags: {} });
    expect(await store.tags.allocate('a')).toEqual({ bizTag: 'a', maxId: 110, step: 10, semantics: 'leaf-ts' });

    // Tag b keeps leaf-ts on its own; the default goes to leaf: a and the tombstone skip one, b does not.
    expect(await store.semantics.setTagSemantics('b', 'leaf-ts', stamp)).toEqual({
      before: 'leaf-ts',
      after: 'leaf-ts',
      bumped: 0,
    });
    expect(await store.semantics.setDefaultSemantics('leaf', stamp)).toEqual({
      before: 'leaf-ts',
      after: 'leaf',
      bumped: 1,
    });
    expect((await store.tags.getTag('a'))?.maxId).toBe(111);
    expect((await store.tags.getTag('b'))?.maxId).toBe(100);
    expect((await store.tags.getTombstone('gone'))?.maxId).toBe(101);
    expect(await store.semantics.getSemantics()).toEqual({ default: 'leaf', tags: { b: 'leaf-ts' } });
    expect(await store.tags.allocate('a', 5)).toEqual({ bizTag: 'a', maxId: 116, step: 5, semantics: 'leaf' }); // serves 111..115
    expect(await store.tags.allocate('b')).toMatchObject({ maxId: 110, semantics: 'leaf-ts' });
    expect(await store.semantics.tagSemantics('a')).toBe('leaf');

    // The same value again changes nothing; leaf → leaf-ts needs no skip.
    expect(await store.semantics.setDefaultSemantics('leaf', stamp)).toEqual({
      before: 'leaf',
      after: 'leaf',
      bumped: 0,
    });
    expect((await store.tags.getTag('a'))?.maxId).toBe(116);
    expect(await store.semantics.setTagSemantics('a', 'leaf-ts', stamp)).toEqual({
      before: 'leaf',
      after: 'leaf-ts',
      bumped: 0,
    });
    expect((await store.tags.getTag('a'))?.maxId).toBe(116);
    // b drops its own row and follows the default (leaf): one up.
    expect(await store.semantics.setTagSemantics('b', null, stamp)).toEqual({
      before: 'leaf-ts',
      after: 'leaf',
      bumped: 1,
    });
    expect((await store.tags.getTag('b'))?.maxId).toBe(111);
    expect(await store.semantics.getSemantics()).toEqual({ default: 'leaf', tags: { a: 'leaf-ts' } });
    await expect(store.semantics.setTagSemantics('nope', 'leaf', stamp)).rejects.toMatchObject({
      code: 'tag_not_found',
    });

    // Re-created, the deleted tag continues above its bumped tombstone in the default's semantics.
    await store.tags.createTag({ bizTag: 'gone', step: 10 });
    expect(await store.tags.allocate('gone')).toEqual({ bizTag: 'gone', maxId: 111, step: 10, semantics: 'leaf' }); // 101..110

    const audit = await store.audit.listAudit({ limit: 50 });
    const switches = audit.filter((e) => e.action === 'tag.semantics' || e.action === 'fleet.semantics').reverse();
    expect(switches.map((e) => [e.action, e.bizTag, e.before, e.after])).toEqual([
      [
        'tag.semantics',
        'b',
        expect.objectContaining({ semantics: 'leaf-ts', maxId: '100' }),
        expect.objectContaining({ semantics: 'leaf-ts', maxId: '100', bumped: 0 }),
      ],
      ['fleet.semantics', null, { semantics: 'leaf-ts' }, { semantics: 'leaf', bumped: 1 }],
      [
        'tag.semantics',
        'a',
        expect.objectContaining({ semantics: 'leaf' }),
        expect.objectContaining({ semantics: 'leaf-ts', bumped: 0 }),
      ],
      [
        'tag.semantics',
        'b',
        expect.objectContaining({ semantics: 'leaf-ts', maxId: '110' }),
        expect.objectContaining({ semantics: 'leaf', maxId: '111', bumped: 1 }),
      ],
    ]);
  });
});
