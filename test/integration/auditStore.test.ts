/**
 * leaf_audit on MysqlStore (real MariaDB), PostgresStore (real PostgreSQL) and SqliteStore (real file), the same cases: every audited change
 * writes exactly one entry with the rows before and after, in the change's own transaction — with the audit table
 * gone the change itself is rolled back; a refused change writes nothing; listing is newest first, pages by id and
 * filters by tag.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../lib/admin/auditStore';
import type { AuditStamp } from '../../lib/audit';
import type { LeafStore } from '../../lib/store/leafStore';
import { type RawStore, rawStoreOpener } from '../support/rawStores';
import { codeOf } from '../support/outcomes';

const openStore = rawStoreOpener('leaf-it-audit-');

/** Moves leaf_audit out of the way (and back), so an audit insert fails. */
function hideAuditTable(h: RawStore, hidden: boolean): Promise<void> {
  return h.exec(
    hidden
      ? 'ALTER TABLE leaf_audit RENAME TO leaf_audit_hidden'
      : 'ALTER TABLE leaf_audit_hidden RENAME TO leaf_audit',
  );
}

let at = 1_800_000_000_000;
const stamp = (actor = 'token:0123abcd'): AuditStamp => ({
  actor,
  address: '203.0.113.7',
  nodeId: 'node-a:3000',
  at: ++at,
});

/** Every entry of the trail, newest first, through pages of `limit`. */
async function everything(store: LeafStore, bizTag?: string, limit = 2): Promise<AuditRecord[]> {
  const all: AuditRecord[] = [];
  for (let before: number | undefined; ;) {
    const page = await store.audit.listAudit({ before, limit, bizTag });
    all.push(...page);
    if (page.length < limit) return all;
    before = page[page.length - 1]!.id;
  }
}

describe.each(['mysql', 'postgres', 'sqlite'] as const)('%s store: audit trail', (dialect) => {
  let h: RawStore;
  let s: LeafStore;
  beforeAll(async () => {
    h = await openStore(dialect);
    s = h.store;
  });

  it('create, edit, raise and delete each write one entry with the rows before and after', async () => {
    const created = await s.tags.createTag(
      { bizTag: 'a-tag', step: 10, maxId: 100, description: 'first' },
      stamp('session:AAAAAAAAAAAAAAAA'),
    );
    const edited = await s.tags.updateTag('a-tag', { step: 20, description: 'second' }, stamp());
    const raised = await s.tags.raiseMaxId('a-tag', 5_000, stamp());
    expect(await s.tags.deleteTag('a-tag', stamp())).toEqual({ maxId: 5_000 });

    const entries = await s.audit.listAudit({ limit: 10, bizTag: 'a-tag' });
    expect(entries.map((e) => e.action)).toEqual(['tag.delete', 'tag.raise', 'tag.edit', 'tag.create']);
    const [del, raise, edit, create] = entries as [AuditRecord, AuditRecord, AuditRecord, AuditRecord];
    expect(create).toMatchObject({
      bizTag: 'a-tag',
      actor: 'session:AAAAAAAAAAAAAAAA',
      address: '203.0.113.7',
      nodeId: 'node-a:3000',
      before: null,
    });
    expect(create.after).toEqual({
      bizTag: 'a-tag',
      maxId: '100',
      step: 10,
      description: 'first',
      updateTime: created.updateTime.toISOString(),
    });
    expect(edit.before).toMatchObject({ maxId: '100', step: 10, description: 'first' });
    expect(edit.after).toEqual({
      bizTag: 'a-tag',
      maxId: '100',
      step: 20,
      description: 'second',
      updateTime: edited.updateTime.toISOString(),
    });
    expect(raise.before).toMatchObject({ maxId: '100', step: 20 });
    expect(raise.after).toMatchObject({ maxId: '5000', step: 20, updateTime: raised.updateTime.toISOString() });
    expect(del.before).toMatchObject({ maxId: '5000', step: 20, description: 'second' });
    expect(del.after).toBeNull();
    // Stamped as given, ids growing with time.
    expect(entries.map((e) => e.at)).toEqual([...entries.map((e) => e.at)].sort((x, y) => y - x));
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((x, y) => y - x));
  });

  it('a refused change writes no entry', async () => {
    await s.tags.createTag({ bizTag: 'r-tag', step: 10, maxId: 1_000 }, stamp());
    await s.tags.createTag({ bizTag: 'r-gone', step: 10, maxId: 9_000 }, stamp());
    await s.tags.deleteTag('r-gone', stamp());
    const count = async () => (await everything(s)).length;
    const before = await count();
    expect(await codeOf(s.tags.createTag({ bizTag: 'r-tag', step: 10 }, stamp()))).toBe('tag_exists');
    expect(await codeOf(s.tags.createTag({ bizTag: 'r-gone', step: 10, maxId: 5 }, stamp()))).toBe(
      'max_id_below_tombstone',
    );
    expect(await codeOf(s.tags.raiseMaxId('r-tag', 999, stamp()))).toBe('max_id_lowered');
    expect(await codeOf(s.tags.raiseMaxId('r-missing', 999, stamp()))).toBe('tag_not_found');
    expect(await codeOf(s.tags.updateTag('r-missing', { step: 5 }, stamp()))).toBe('tag_not_found');
    expect(await codeOf(s.tags.deleteTag('r-missing', stamp()))).toBe('tag_not_found');
    expect(await count()).toBe(before);
    // And an unaudited change (no stamp) writes none either.
    await s.tags.updateTag('r-tag', { step: 11 });
    expect(await count()).toBe(before);
  });

  it("the entry is written in the change's transaction: when it cannot be written, the change is rolled back", async () => {
    await s.tags.createTag({ bizTag: 't-tag', step: 10, maxId: 700, description: 'kept' }, stamp());
    const row = await s.tags.getTag('t-tag');
    await hideAuditTable(h, true);
    try {
      expect(await codeOf(s.tags.updateTag('t-tag', { step: 99, description: 'lost' }, stamp()))).toBe(
        'store_unavailable',
      );
      expect(await codeOf(s.tags.raiseMaxId('t-tag', 90_000, stamp()))).toBe('store_unavailable');
      expect(await codeOf(s.tags.deleteTag('t-tag', stamp()))).toBe('store_unavailable');
      expect(await codeOf(s.tags.createTag({ bizTag: 't-new', step: 10 }, stamp()))).toBe('store_unavailable');
      expect(await codeOf(s.audit.appendAudit({ action: 'auth.login', ...stamp('session:BBBBBBBBBBBBBBBB') }))).toBe(
        'store_unavailable',
      );
      expect(await s.tags.getTag('t-tag'), 'edit, raise and delete rolled back').toEqual(row);
      expect(await s.tags.getTombstone('t-tag')).toBeUndefined();
      expect(await s.tags.getTag('t-new'), 'create rolled back').toBeUndefined();
    } finally {
      await hideAuditTable(h, false);
    }
    // With the table back, the same edit goes through with its entry.
    await s.tags.updateTag('t-tag', { step: 99 }, stamp());
    expect((await s.audit.listAudit({ limit: 1, bizTag: 't-tag' }))[0]).toMatchObject({
      action: 'tag.edit',
      after: { step: 99 },
    });
  });

  it('lists newest first, pages by id without gaps or repeats, filters by tag; logins have no tag and no rows', async () => {
    const own = await openStore(dialect); // a trail of its own
    const o = own.store;
    await o.tags.createTag({ bizTag: 'p-a', step: 1 }, stamp());
    await o.tags.createTag({ bizTag: 'p-b', step: 1 }, stamp());
    for (let i = 2; i <= 7; i++) await o.tags.updateTag('p-a', { step: i }, stamp());
    await o.audit.appendAudit({ action: 'auth.login', ...stamp('session:CCCCCCCCCCCCCCCC') });
    await o.audit.appendAudit({ action: 'auth.login_failed', ...stamp('anonymous'), address: '198.51.100.1' });
    await o.tags.updateTag('p-b', { step: 2 }, stamp());

    const all = await o.audit.listAudit({ limit: 200 });
    expect(all).toHaveLength(11);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((x, y) => y - x));
    expect(new Set(all.map((e) => e.id)).size).toBe(11);
    for (const limit of [1, 2, 3, 4, 11, 50])
      expect(
        (await everything(o, undefined, limit)).map((e) => e.id),
        `limit ${limit}`,
      ).toEqual(all.map((e) => e.id));

    const onlyA = await everything(o, 'p-a', 3);
    expect(onlyA.map((e) => e.action)).toEqual([...Array(6).fill('tag.edit'), 'tag.create']);
    expect(onlyA.map((e) => (e.after !== null && 'step' in e.after ? e.after.step : undefined))).toEqual([
      7, 6, 5, 4, 3, 2, 1,
    ]);
    expect((await o.audit.listAudit({ limit: 50, bizTag: 'p-b' })).map((e) => e.action)).toEqual([
      'tag.edit',
      'tag.create',
    ]);
    expect(await o.audit.listAudit({ limit: 50, bizTag: 'p-none' })).toEqual([]);
    expect(await o.audit.listAudit({ limit: 50, before: all[all.length - 1]!.id })).toEqual([]);

    const logins = all.filter((e) => e.action.startsWith('auth.'));
    expect(logins).toEqual([
      expect.objectContaining({
        action: 'auth.login_failed',
        bizTag: null,
        actor: 'anonymous',
        address: '198.51.100.1',
        before: null,
        after: null,
      }),
      expect.objectContaining({
        action: 'auth.login',
        bizTag: null,
        actor: 'session:CCCCCCCCCCCCCCCC',
        before: null,
        after: null,
      }),
    ]);
  });
});
