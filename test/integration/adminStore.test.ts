/**
 * The admin operations of the tag store — createTag, updateTag, raiseMaxId, deleteTag (tombstones), listTagRows — on
 * MysqlStore (real MariaDB), PostgresStore (real PostgreSQL) and SqliteStore (real file), the same table of cases for
 * all; and on both servers, raises racing allocations: max_id only grows and segments never overlap (a raise may leave a gap, nothing else does).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LeafError, isLeafError } from '../../lib/errors';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import type { Id } from '../../lib/segment/id';
import type { Allocation } from '../../lib/segment/segmentSource';
import type { LeafStore } from '../../lib/store/leafStore';
import { type RawStore, rawStoreOpener } from '../support/rawStores';
import { defined } from '../support/defined';
import { rng } from '../../tools/harness';

const openStore = rawStoreOpener('leaf-it-admin-');

/** The LeafError a call must fail with. */
async function refused(promise: Promise<unknown>, code: string): Promise<LeafError> {
  let error: unknown;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  expect(error, `expected LeafError ${code}, the call succeeded`).toBeDefined();
  expect(isLeafError(error), `expected a LeafError ${code}, got ${String(error)}`).toBe(true);
  expect((error as LeafError).code).toBe(code);
  return error as LeafError;
}

/** What must not change when an edit is refused. */
const essentials = (row: { bizTag: string; maxId: Id; step: number; description: string | null } | undefined) =>
  row && { bizTag: row.bizTag, maxId: row.maxId, step: row.step, description: row.description };

describe.each(['mysql', 'postgres', 'sqlite'] as const)('%s store: admin operations', (dialect) => {
  let h: RawStore;
  let s: LeafStore;
  beforeAll(async () => {
    h = await openStore(dialect);
    s = h.store;
  });

  it('createTag without maxId starts at 1; with maxId the first segment starts above it', async () => {
    const plain = await s.tags.createTag({ bizTag: 'c-plain', step: 100 });
    expect(essentials(plain)).toEqual({ bizTag: 'c-plain', maxId: 1, step: 100, description: null });
    expect(plain.updateTime).toBeInstanceOf(Date);
    expect(Number.isNaN(plain.updateTime.getTime())).toBe(false);
    expect(await s.tags.allocate('c-plain')).toEqual({
      bizTag: 'c-plain',
      maxId: 101,
      step: 100,
      semantics: 'leaf-ts',
    });

    const migrated = await s.tags.createTag({
      bizTag: 'c-migrated',
      step: 50,
      maxId: 1_000_000,
      description: 'from the old scheme',
    });
    expect(essentials(migrated)).toEqual({
      bizTag: 'c-migrated',
      maxId: 1_000_000,
      step: 50,
      description: 'from the old scheme',
    });
    expect(essentials(await s.tags.getTag('c-migrated'))).toEqual(essentials(migrated));
    expect(await s.tags.allocate('c-migrated')).toEqual({
      bizTag: 'c-migrated',
      maxId: 1_000_050,
      step: 50,
      semantics: 'leaf-ts',
    });
  });

  it('createTag of an existing tag: tag_exists, the row unchanged', async () => {
    await s.tags.createTag({ bizTag: 'c-dup', step: 10, maxId: 500, description: 'first' });
    const before = essentials(await s.tags.getTag('c-dup'));
    await refused(s.tags.createTag({ bizTag: 'c-dup', step: 99, maxId: 9_999, description: 'second' }), 'tag_exists');
    await refused(s.tags.createTag({ bizTag: 'c-dup', step: 99 }), 'tag_exists');
    expect(essentials(await s.tags.getTag('c-dup'))).toEqual(before);
  });

  it('updateTag: step and description, separately and together; max_id untouched; tag_not_found', async () => {
    await s.tags.createTag({ bizTag: 'u-tag', step: 10, maxId: 77, description: 'd0' });
    const cases: Array<{
      changes: { step?: number; description?: string | null };
      expect: { step: number; description: string | null };
    }> = [
      { changes: { step: 20 }, expect: { step: 20, description: 'd0' } },
      { changes: { description: 'd1' }, expect: { step: 20, description: 'd1' } },
      { changes: { step: 30, description: 'd2' }, expect: { step: 30, description: 'd2' } },
      { changes: { description: null }, expect: { step: 30, description: null } },
      { changes: {}, expect: { step: 30, description: null } },
    ];
    for (const c of cases) {
      const row = await s.tags.updateTag('u-tag', c.changes);
      expect(essentials(row), JSON.stringify(c.changes)).toEqual({ bizTag: 'u-tag', maxId: 77, ...c.expect });
      expect(essentials(await s.tags.getTag('u-tag'))).toEqual(essentials(row));
    }
    // The new step is what allocate adds.
    expect(await s.tags.allocate('u-tag')).toEqual({ bizTag: 'u-tag', maxId: 107, step: 30, semantics: 'leaf-ts' });
    await refused(s.tags.updateTag('u-missing', { step: 5 }), 'tag_not_found');
    await refused(s.tags.updateTag('u-missing', { description: 'x' }), 'tag_not_found');
    expect(await s.tags.getTag('u-missing')).toBeUndefined();
  });

  it('raiseMaxId: up and equal are fine; down is max_id_lowered with the row unchanged; tag_not_found', async () => {
    await s.tags.createTag({ bizTag: 'r-tag', step: 10, maxId: 100, description: 'r' });
    const cases: Array<{ to: number; ok: boolean; after: number }> = [
      { to: 250, ok: true, after: 250 },
      { to: 250, ok: true, after: 250 }, // equal
      { to: 249, ok: false, after: 250 },
      { to: 1, ok: false, after: 250 },
      { to: 0, ok: false, after: 250 },
      { to: 10_000, ok: true, after: 10_000 },
    ];
    for (const c of cases) {
      const before = essentials(await s.tags.getTag('r-tag'))!;
      if (c.ok) {
        const row = await s.tags.raiseMaxId('r-tag', c.to);
        expect(essentials(row), `raise to ${c.to}`).toEqual({ ...before, maxId: c.after });
      } else {
        const e = await refused(s.tags.raiseMaxId('r-tag', c.to), 'max_id_lowered');
        expect(e.fields?.maxId, 'the form field gets the message').toBeDefined();
        expect(e.message).toContain(String(before.maxId));
      }
      expect(essentials(await s.tags.getTag('r-tag')), `after raise to ${c.to}`).toEqual({ ...before, maxId: c.after });
    }
    expect(await s.tags.allocate('r-tag')).toEqual({ bizTag: 'r-tag', maxId: 10_010, step: 10, semantics: 'leaf-ts' });
    await refused(s.tags.raiseMaxId('r-missing', 5), 'tag_not_found');
    expect(await s.tags.getTag('r-missing')).toBeUndefined();
  });

  it('deleteTag leaves a tombstone; createTag without maxId continues at it', async () => {
    await s.tags.createTag({ bizTag: 'd-tag', step: 100, description: 'old' });
    await s.tags.allocate('d-tag');
    await s.tags.allocate('d-tag'); // max_id 201
    expect(await s.tags.deleteTag('d-tag')).toEqual({ maxId: 201 });
    expect(await s.tags.getTag('d-tag')).toBeUndefined();
    expect(await s.tags.getTombstone('d-tag')).toEqual({ maxId: 201 });
    expect((await s.tags.listTagRows()).map((r) => r.bizTag)).not.toContain('d-tag');
    await refused(s.tags.allocate('d-tag'), 'tag_not_found');

    const again = await s.tags.createTag({ bizTag: 'd-tag', step: 7 });
    expect(essentials(again)).toEqual({ bizTag: 'd-tag', maxId: 201, step: 7, description: null });
    expect(await s.tags.getTombstone('d-tag'), 'the tombstone is consumed by the re-creation').toBeUndefined();
    expect(await s.tags.allocate('d-tag'), 'continues strictly above the deleted IDs').toEqual({
      bizTag: 'd-tag',
      maxId: 208,
      step: 7,
      semantics: 'leaf-ts',
    });
  });

  it('createTag below the tombstone: max_id_below_tombstone, no row; at or above it: fine', async () => {
    await s.tags.createTag({ bizTag: 't-tag', step: 10, maxId: 5_000 });
    await s.tags.deleteTag('t-tag');
    for (const low of [4_999, 1, 0]) {
      const e = await refused(s.tags.createTag({ bizTag: 't-tag', step: 10, maxId: low }), 'max_id_below_tombstone');
      expect(e.fields?.maxId).toBeDefined();
      expect(await s.tags.getTag('t-tag'), 'no row created').toBeUndefined();
      expect(await s.tags.getTombstone('t-tag'), 'the tombstone stays').toEqual({ maxId: 5_000 });
    }
    const higher = await s.tags.createTag({ bizTag: 't-tag', step: 10, maxId: 6_000, description: 'higher' });
    expect(essentials(higher)).toEqual({ bizTag: 't-tag', maxId: 6_000, step: 10, description: 'higher' });
    expect(await s.tags.getTombstone('t-tag')).toBeUndefined();
    expect(await s.tags.allocate('t-tag')).toEqual({ bizTag: 't-tag', maxId: 6_010, step: 10, semantics: 'leaf-ts' });

    // Exactly at the tombstone is allowed too: the next segment starts above it.
    await s.tags.createTag({ bizTag: 't-equal', step: 10, maxId: 300 });
    await s.tags.deleteTag('t-equal');
    expect((await s.tags.createTag({ bizTag: 't-equal', step: 10, maxId: 300 })).maxId).toBe(300);
  });

  it('deleting twice keeps the highest tombstone', async () => {
    // Delete, re-create higher, delete again: the tombstone follows the highest max_id.
    await s.tags.createTag({ bizTag: 'dd-tag', step: 10, maxId: 1_000 });
    expect(await s.tags.deleteTag('dd-tag')).toEqual({ maxId: 1_000 });
    await s.tags.createTag({ bizTag: 'dd-tag', step: 10 });
    await s.tags.raiseMaxId('dd-tag', 3_000);
    expect(await s.tags.deleteTag('dd-tag')).toEqual({ maxId: 3_000 });
    expect(await s.tags.getTombstone('dd-tag')).toEqual({ maxId: 3_000 });

    // A tombstone already higher than the row being deleted (written by hand, or left by an older delete) is kept.
    await s.tags.createTag({ bizTag: 'dd-stale', step: 10, maxId: 100 });
    await h.exec('INSERT INTO leaf_alloc_tombstone (biz_tag, max_id) VALUES (?, ?)', ['dd-stale', 90_000]);
    expect(await s.tags.deleteTag('dd-stale')).toEqual({ maxId: 100 });
    expect(await s.tags.getTombstone('dd-stale'), 'GREATEST of the old tombstone and the deleted row').toEqual({
      maxId: 90_000,
    });
    expect((await s.tags.createTag({ bizTag: 'dd-stale', step: 10 })).maxId).toBe(90_000);
    // And a lower tombstone is raised by the delete.
    await h.exec('INSERT INTO leaf_alloc_tombstone (biz_tag, max_id) VALUES (?, ?)', ['dd-stale', 5]);
    await s.tags.raiseMaxId('dd-stale', 95_000);
    expect(await s.tags.deleteTag('dd-stale')).toEqual({ maxId: 95_000 });
    expect(await s.tags.getTombstone('dd-stale')).toEqual({ maxId: 95_000 });
  });

  it('deleteTag of an unknown tag: tag_not_found, no tombstone', async () => {
    await refused(s.tags.deleteTag('x-missing'), 'tag_not_found');
    expect(await s.tags.getTombstone('x-missing')).toBeUndefined();
    // A tag already deleted is unknown too, and its tombstone is left as it was.
    await s.tags.createTag({ bizTag: 'x-gone', step: 10, maxId: 40 });
    await s.tags.deleteTag('x-gone');
    await refused(s.tags.deleteTag('x-gone'), 'tag_not_found');
    expect(await s.tags.getTombstone('x-gone')).toEqual({ maxId: 40 });
  });

  it('listTagRows: every row, full, ordered by biz_tag', async () => {
    const own = await openStore(dialect); // an empty database of its own
    const l = own.store;
    expect(await l.tags.listTagRows()).toEqual([]);
    await l.tags.createTag({ bizTag: 'orders', step: 1000, maxId: 42, description: 'order ids' });
    await l.tags.createTag({ bizTag: 'alpha', step: 10 });
    await l.tags.createTag({ bizTag: 'm.id:1', step: 5, description: 'dots and colons' });
    await l.tags.allocate('alpha');
    const rows = await l.tags.listTagRows();
    expect(rows.map(essentials)).toEqual([
      { bizTag: 'alpha', maxId: 11, step: 10, description: null },
      { bizTag: 'm.id:1', maxId: 1, step: 5, description: 'dots and colons' },
      { bizTag: 'orders', maxId: 42, step: 1000, description: 'order ids' },
    ]);
    for (const r of rows) expect(r.updateTime).toBeInstanceOf(Date);
    expect((await l.tags.listTags()).map((t) => t.bizTag)).toEqual(['alpha', 'm.id:1', 'orders']);
    await l.tags.deleteTag('m.id:1');
    expect((await l.tags.listTagRows()).map((r) => r.bizTag)).toEqual(['alpha', 'orders']);
  });
});

describe.each(['mysql', 'postgres'] as const)('%s store: raiseMaxId racing allocate', (dialect) => {
  const STORES = 3;
  const RAISES = 20;
  const ALLOCATIONS = 300;
  const ROUNDS = 3;
  let stores: LeafStore[] = [];

  beforeAll(async () => {
    const h = await openStore(dialect);
    stores = [h.store];
    const open = (url: string) =>
      dialect === 'mysql'
        ? MysqlStore.open({ url, connectionLimit: 8 })
        : PostgresStore.open({ url, connectionLimit: 8 });
    for (let i = 1; i < STORES; i++) stores.push(await open(h.url!));
  });
  afterAll(async () => {
    for (const st of stores.slice(1)) await st.close();
  });

  it(`${RAISES} concurrent raises and ${ALLOCATIONS} allocations (3 pools) × ${ROUNDS}: max_id never goes back, segments never overlap`, async () => {
    const first = defined(stores[0], 'the first store');
    for (let round = 0; round < ROUNDS; round++) {
      const tag = `race-${round}`;
      const seed = (Date.now() + round * 7919) >>> 0;
      const random = rng(seed);
      const randInt = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
      const STEP = 50;
      await first.tags.createTag({ bizTag: tag, step: STEP });
      const initial = (await first.tags.getTag(tag))!.maxId;

      type Op = { kind: 'raise'; to: number; delay: number } | { kind: 'alloc'; step?: number; delay: number };
      const ops: Op[] = [];
      // A raise is what an operator does: read the row, pick a value near it (a little below or above), raise.
      // Allocations keep moving max_id in between, so some raises are applied and some refused.
      for (let i = 0; i < RAISES; i++) ops.push({ kind: 'raise', to: 0, delay: randInt(0, 150) });
      for (let i = 0; i < ALLOCATIONS; i++)
        ops.push({ kind: 'alloc', step: random() < 0.5 ? undefined : randInt(1, 150), delay: randInt(0, 150) });
      // (max_id moves by ~100 per ms here, and a raise waits a few ms for a pooled connection: mostly above.)
      const offsets = ops.map(() => randInt(-2_000, 8_000));
      const started = Date.now();
      const results = await Promise.allSettled(
        ops.map(async (op, i) => {
          await new Promise((r) => setTimeout(r, op.delay));
          const st = defined(stores[i % stores.length], `store ${i % stores.length}`);
          if (op.kind === 'alloc') return st.tags.allocate(tag, op.step);
          op.to = Math.max(1, Number((await st.tags.getTag(tag))!.maxId) + defined(offsets[i], `offset ${i}`));
          return st.tags.raiseMaxId(tag, op.to);
        }),
      );
      const ms = Date.now() - started;
      const final = Number((await first.tags.getTag(tag))!.maxId);

      const raisedTo = new Set<number>();
      let refusedRaises = 0;
      let appliedRaises = 0;
      const segments: Array<{ start: number; max: number }> = [];
      ops.forEach((op, i) => {
        const r = defined(results[i], `the result of operation ${i}`);
        if (op.kind === 'raise') {
          if (r.status === 'fulfilled') {
            raisedTo.add(op.to);
            appliedRaises++;
            expect((r.value as { maxId: number }).maxId, 'the row read after a raise').toBeGreaterThanOrEqual(op.to);
            expect(final, `final max_id vs successful raise to ${op.to}`).toBeGreaterThanOrEqual(op.to);
          } else {
            refusedRaises++;
            expect(isLeafError(r.reason) && r.reason.code, String(r.reason)).toBe('max_id_lowered');
            // Refused because max_id was already above it.
            expect(final, `final max_id vs refused raise to ${op.to}`).toBeGreaterThan(op.to);
          }
        } else {
          expect(r.status, r.status === 'rejected' ? String(r.reason) : '').toBe('fulfilled');
          const a = (r as PromiseFulfilledResult<Allocation>).value;
          if (op.step !== undefined) expect(a.step).toBe(op.step);
          else expect(a.step).toBe(STEP);
          expect(final).toBeGreaterThanOrEqual(a.maxId);
          segments.push({ start: Number(a.maxId) - a.step + 1, max: Number(a.maxId) });
        }
      });

      // Disjoint, above the initial max_id; every gap ends exactly at a successful raise's value.
      segments.sort((x, y) => x.start - y.start);
      let prevMax = initial;
      let gaps = 0;
      for (const seg of segments) {
        if (seg.start <= prevMax)
          throw new Error(`round ${round}: segment ${seg.start}..${seg.max} overlaps the one ending at ${prevMax}`);
        if (seg.start - 1 !== prevMax) {
          gaps++;
          expect(
            raisedTo.has(seg.start - 1),
            `round ${round}: the gap before ${seg.start} is not explained by a raise to ${seg.start - 1}`,
          ).toBe(true);
        }
        prevMax = seg.max;
      }
      if (final !== prevMax)
        expect(raisedTo.has(final), `final max_id ${final} is neither the last segment's end nor a raise`).toBe(true);
      process.stderr.write(
        `[adminStore] round ${round}: ${ALLOCATIONS} allocations, ${appliedRaises} raises applied / ${refusedRaises} refused, ` +
          `${gaps} gaps, max_id ${initial} -> ${final} in ${ms} ms, seed ${seed}\n`,
      );
      expect(refusedRaises + appliedRaises).toBe(RAISES);
    }
  });
});
