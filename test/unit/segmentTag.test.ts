/**
 * Tag handles (`engine.tag(name)`): the hot path without the per-call lookup, and what happens under a handle when
 * the tag-list refresh deletes or re-creates its tag. Fake store and clock; every ID is checked for duplicates.
 */
import { describe, expect, it } from 'vitest';
import type { LeafError } from '@/lib/errors';
import { SegmentEngine } from '@/lib/segment/engine';
import type { SegmentTag } from '@/lib/segment/segmentTag';
import { FakeClock, FakeStore, flush } from '../support/fakes';

async function setup(tags: Array<{ bizTag: string; step: number; maxId?: number }> = [{ bizTag: 'order', step: 100 }]) {
  const store = new FakeStore(tags);
  const clock = new FakeClock();
  const engine = new SegmentEngine({ store, clock, refreshIntervalMs: 0, loadWaitMs: 200 });
  await engine.start();
  return { store, clock, engine };
}

/** `n` IDs from the handle, awaiting only when it hands back a promise; counts the promises. */
async function drain(handle: SegmentTag, n: number): Promise<{ ids: number[]; promises: number }> {
  const ids: number[] = [];
  let promises = 0;
  for (let i = 0; i < n; i++) {
    const r = handle.next();
    if (typeof r === 'number') ids.push(r);
    else {
      promises++;
      ids.push(Number(await r)); // small IDs: numbers
    }
  }
  return { ids, promises };
}

async function rejection(p: unknown): Promise<LeafError> {
  try {
    await p;
  } catch (e) {
    return e as LeafError;
  }
  throw new Error('expected a rejection');
}

function expectUniqueIncreasing(ids: number[]): void {
  expect(new Set(ids).size).toBe(ids.length);
  for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] as number);
}

/** The tag leaves the list on the next refresh (a delete through any node). */
async function deleteTag(store: FakeStore, clock: FakeClock, engine: SegmentEngine, bizTag: string): Promise<number> {
  const maxId = store.rows.get(bizTag)?.maxId as number;
  store.rows.delete(bizTag);
  clock.advance(60_000);
  await engine.refreshTags();
  return maxId;
}

describe('SegmentEngine.tag: the handle', () => {
  it('serves what nextId serves, synchronously while buffered, sharing the same buffers', async () => {
    const { engine } = await setup([{ bizTag: 'order', step: 100 }]);
    const handle = engine.tag('order');
    expect(handle.name).toBe('order');
    const first = await handle.next(); // the first load
    expect(first).toBe(2);
    expect(typeof handle.next()).toBe('number');
    const mixed: number[] = [Number(first), 3];
    for (let i = 0; i < 500; i++) {
      const r = i % 3 === 0 ? engine.nextId('order') : handle.next();
      mixed.push(Number(await r));
      if (i % 50 === 0) await flush();
    }
    expectUniqueIncreasing(mixed);
    expect(mixed).toEqual(Array.from({ length: mixed.length }, (_, i) => 2 + i));
  });

  it('starts the background load once 10% of a segment is used, exactly as nextId does', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 100 }]);
    const handle = engine.tag('order');
    await drain(handle, 9); // IDs 2..10: 9 of 100 used
    await flush();
    expect(store.allocateCalls).toHaveLength(1);
    await drain(handle, 1); // the 10th
    expect(store.allocateCalls).toHaveLength(2);
    await flush();
    await drain(handle, 85);
    await flush();
    expect(store.allocateCalls).toHaveLength(2); // none more while the next one is ready
    expect(engine.snapshot('order')?.pending).toMatchObject({ start: '102', step: 200 });
  });

  it('retries a failed preload after the backoff, before the segment runs out', async () => {
    const { store, clock, engine } = await setup([{ bizTag: 'order', step: 100 }]);
    const handle = engine.tag('order');
    await drain(handle, 5);
    store.failWith = new Error('db down');
    await drain(handle, 5); // the preload starts and fails
    await flush();
    expect(store.allocateCalls).toHaveLength(2);
    await drain(handle, 5); // within the backoff: no new attempt
    expect(store.allocateCalls).toHaveLength(2);
    store.failWith = null;
    clock.advance(100);
    await drain(handle, 1); // the next ID past the backoff tries again
    expect(store.allocateCalls).toHaveLength(3);
    await flush();
    expect(engine.snapshot('order')?.pending).not.toBeNull();
  });

  it('take(n) gives n increasing IDs from the same buffers', async () => {
    const { engine } = await setup([{ bizTag: 'order', step: 10 }]);
    const handle = engine.tag('order');
    const batch = await handle.take(25);
    expect(batch).toEqual(Array.from({ length: 25 }, (_, i) => 2 + i));
    expect(await handle.next()).toBe(27);
  });

  it('a tag not known yet is looked up on first use, as nextId does', async () => {
    const { store, clock, engine } = await setup([]);
    const handle = engine.tag('late');
    expect(handle.buffered).toBe(0);
    await store.createTag({ bizTag: 'late', step: 10 });
    const first = handle.next();
    expect(first).toBeInstanceOf(Promise);
    await flush();
    clock.advance(1_000);
    expect(await first).toBe(2);
    expect(handle.next()).toBe(3); // now buffered: synchronous
  });

  it('an unknown tag fails with the same tag_not_found as nextId', async () => {
    const { clock, engine } = await setup();
    const viaHandle = rejection(engine.tag('ghost').next());
    const viaNextId = rejection(engine.nextId('ghost'));
    await flush();
    clock.advance(1_000);
    const [a, b] = await Promise.all([viaHandle, viaNextId]);
    expect(a.code).toBe('tag_not_found');
    expect(b.code).toBe(a.code);
    expect(a.message).toBe(b.message);
  });

  it('after its tag is deleted the handle serves none of the IDs its old buffer still held: tag_not_found', async () => {
    const { store, clock, engine } = await setup([{ bizTag: 'order', step: 100 }]);
    const handle = engine.tag('order');
    await drain(handle, 20);
    await flush();
    expect(handle.buffered).toBeGreaterThan(200); // both segments full of IDs
    await deleteTag(store, clock, engine, 'order');
    const gone = rejection(handle.next());
    const goneToo = rejection(engine.nextId('order'));
    await flush();
    clock.advance(1_000);
    expect((await gone).code).toBe('tag_not_found');
    expect((await goneToo).code).toBe('tag_not_found');
  });

  it('a tag deleted and re-created under a handle: it moves to the new buffer, above the old max_id, never repeating', async () => {
    const { store, clock, engine } = await setup([{ bizTag: 'order', step: 100 }]);
    const handle = engine.tag('order');
    const other = engine.tag('order');
    const before = await drain(handle, 150);
    await flush();
    const oldMax = await deleteTag(store, clock, engine, 'order');
    // Re-created through another node: the tombstone keeps max_id, so the new row continues above it.
    await store.createTag({ bizTag: 'order', step: 50, maxId: oldMax });
    clock.advance(60_000);
    await engine.refreshTags();
    const after = await drain(handle, 120);
    const viaOther = await drain(other, 30);
    const viaNextId: number[] = [];
    for (let i = 0; i < 30; i++) viaNextId.push(Number(await engine.nextId('order')));
    expect(Math.min(...after.ids)).toBe(oldMax + 1); // the old buffer's leftovers are gaps, never served
    const all = [...before.ids, ...after.ids, ...viaOther.ids, ...viaNextId];
    expect(new Set(all).size).toBe(all.length);
    expectUniqueIncreasing(after.ids);
  });

  it('a load that lands after the tag was deleted is not served through a handle', async () => {
    const { store, clock, engine } = await setup([{ bizTag: 'order', step: 10 }]);
    const handle = engine.tag('order');
    await drain(handle, 10); // the first segment used up; its preload landed
    await flush();
    store.hold = true;
    await drain(handle, 2); // the preload of the third segment is held in the store
    const oldMax = await deleteTag(store, clock, engine, 'order');
    store.rows.set('order', { maxId: oldMax, step: 10 }); // the held claim finds the row again
    store.release();
    await flush();
    expect(engine.snapshot('order')).toBeUndefined();
    const gone = rejection(handle.next());
    store.rows.delete('order');
    await flush();
    clock.advance(1_000);
    expect((await gone).code).toBe('tag_not_found');
  });

  it("nextId never serves another tag's buffer from its last-tag cache, not even for an empty tag name", async () => {
    const { clock, engine } = await setup([{ bizTag: 'order', step: 10 }]);
    expect(await engine.nextId('order')).toBe(2); // the first load: the slow path, which resets the cache
    const empty = rejection(engine.nextId(''));
    await flush();
    clock.advance(1_000);
    expect((await empty).code).toBe('tag_not_found');
    expect(engine.nextId('order')).toBe(3);
  });

  it('nextId stays right when it alternates tags and when its last tag is deleted and re-created', async () => {
    const { store, clock, engine } = await setup([
      { bizTag: 'a', step: 10 },
      { bizTag: 'b', step: 10, maxId: 1_000 },
    ]);
    const seen: number[] = [];
    for (let i = 0; i < 60; i++) seen.push(Number(await engine.nextId(i % 2 === 0 ? 'a' : 'b')));
    expect(seen.filter((id) => id < 1_000)).toEqual(Array.from({ length: 30 }, (_, i) => 2 + i));
    const oldMax = await deleteTag(store, clock, engine, 'b');
    await store.createTag({ bizTag: 'b', step: 10, maxId: oldMax });
    clock.advance(60_000);
    await engine.refreshTags();
    const next = await engine.nextId('b');
    expect(next).toBe(oldMax + 1);
    expect(seen).not.toContain(next);
  });
});
