/**
 * The tag list's page by name (tagRowsPage) on MariaDB, PostgreSQL and SQLite: the page in name order either way,
 * counts of the matching rows and of all, a search on name or description with LIKE's wildcards taken literally,
 * and a max_id above 2^53 read exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeafStore } from '../../lib/store/leafStore';
import { type RawStore, rawStoreOpener } from '../support/rawStores';

const openStore = rawStoreOpener('leaf-it-tagpage-');

describe.each(['mysql', 'postgres', 'sqlite'] as const)('%s store: a page of tags by name', (dialect) => {
  let h: RawStore;
  let s: LeafStore;
  const names = Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, '0')}`);
  beforeAll(async () => {
    h = await openStore(dialect);
    s = h.store;
    for (const bizTag of names)
      await s.tags.createTag({ bizTag, step: 10, description: bizTag === 'p07' ? 'Seven 100% off_sale!' : null });
    await s.tags.createTag({ bizTag: 'wide_2', step: 10, maxId: 9007199254740993n });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('pages in name order, ascending and descending, with the counts', async () => {
    const first = await s.tags.tagRowsPage({ q: '', descending: false, offset: 0, limit: 10 });
    expect(first.rows.map((r) => r.bizTag)).toEqual(names.slice(0, 10));
    expect(first).toMatchObject({ matching: 31, total: 31 });
    const later = await s.tags.tagRowsPage({ q: '', descending: false, offset: 25, limit: 10 });
    expect(later.rows.map((r) => r.bizTag)).toEqual([...names.slice(25), 'wide_2']);
    const back = await s.tags.tagRowsPage({ q: '', descending: true, offset: 0, limit: 2 });
    expect(back.rows.map((r) => r.bizTag)).toEqual(['wide_2', 'p29']);
    expect(back.rows[0]!.maxId).toBe(9007199254740993n);
  });

  it('searches name and description case-insensitively; %, _ and ! match only themselves', async () => {
    const seven = await s.tags.tagRowsPage({ q: 'seven', descending: false, offset: 0, limit: 10 });
    expect(seven.rows.map((r) => r.bizTag)).toEqual(['p07']);
    expect(seven).toMatchObject({ matching: 1, total: 31 });
    expect((await s.tags.tagRowsPage({ q: '100%', descending: false, offset: 0, limit: 10 })).matching).toBe(1);
    expect((await s.tags.tagRowsPage({ q: 'f_s', descending: false, offset: 0, limit: 10 })).matching).toBe(1);
    expect((await s.tags.tagRowsPage({ q: 'e!', descending: false, offset: 0, limit: 10 })).matching).toBe(1);
    // `_` is a letter here, not "any one": p1_ matches nothing, though p10…p19 would under LIKE's rules.
    expect((await s.tags.tagRowsPage({ q: 'p1_', descending: false, offset: 0, limit: 10 })).matching).toBe(0);
    expect((await s.tags.tagRowsPage({ q: 'p%9', descending: false, offset: 0, limit: 10 })).matching).toBe(0);
    expect((await s.tags.tagRowsPage({ q: 'de_2', descending: false, offset: 0, limit: 10 })).rows).toHaveLength(1);
    const p1 = await s.tags.tagRowsPage({ q: 'p1', descending: false, offset: 2, limit: 3 });
    expect(p1.rows.map((r) => r.bizTag)).toEqual(['p12', 'p13', 'p14']);
    expect(p1.matching).toBe(10);
  });
});
