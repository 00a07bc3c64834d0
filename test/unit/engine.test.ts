import { describe, expect, it } from 'vitest';
import { LeafError } from '@/lib/errors';
import { SegmentEngine } from '@/lib/segment/engine';
import { FakeClock, FakeStore, flush, outcome } from '../support/fakes';

const MIN = 60_000;

async function setup(
  tags: Array<{ bizTag: string; step: number; maxId?: number }> = [{ bizTag: 'order', step: 100 }],
  opts: { loadWaitMs?: number } = {},
) {
  const store = new FakeStore(tags);
  const clock = new FakeClock();
  const engine = new SegmentEngine({ store, clock, refreshIntervalMs: 0, loadWaitMs: opts.loadWaitMs ?? 200 });
  await engine.start();
  return { store, clock, engine };
}

/** Takes `n` single IDs, awaiting only when the engine says it must. */
async function drain(engine: SegmentEngine, bizTag: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = engine.nextId(bizTag);
    out.push(Number(typeof r === 'object' ? await r : r));
  }
  return out;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

async function rejection(p: Promise<unknown> | unknown): Promise<LeafError> {
  try {
    await p;
  } catch (e) {
    return e as LeafError;
  }
  throw new Error('expected a rejection');
}

describe('SegmentEngine: first load and serving', () => {
  it('claims the first segment with the DB step and serves max_id+1 .. max_id+step', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 100 }]);
    expect(await engine.nextId('order')).toBe(2);
    expect(store.allocateCalls).toEqual([{ bizTag: 'order', step: undefined }]);
    expect(engine.snapshot('order')?.current).toMatchObject({ start: '2', max: '101', step: 100 });
  });

  it('starts above a migrated max_id', async () => {
    const { engine } = await setup([{ bizTag: 'legacy', step: 10, maxId: 5_000_000 }]);
    expect(await engine.takeIds('legacy', 3)).toEqual([5_000_001, 5_000_002, 5_000_003]);
  });

  it('answers synchronously while a buffer can serve', async () => {
    const { engine } = await setup();
    await engine.nextId('order');
    expect(typeof engine.nextId('order')).toBe('number');
    expect(Array.isArray(engine.takeIds('order', 5))).toBe(true);
  });
});

describe('SegmentEngine: double buffer', () => {
  it('fires exactly one background load once 10% of the segment is used, then switches', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 100 }]);
    await drain(engine, 'order', 10); // IDs 2..11: next is 12, 10 consumed → preload point reached
    await flush();
    expect(store.allocateCalls).toHaveLength(2);

    // Nine IDs: still below 10% — let's check precisely with a fresh engine.
    const fresh = await setup([{ bizTag: 'order', step: 100 }]);
    await drain(fresh.engine, 'order', 9);
    await flush();
    expect(fresh.store.allocateCalls).toHaveLength(1);
    await drain(fresh.engine, 'order', 1);
    expect(fresh.store.allocateCalls).toHaveLength(2);

    // No further load while the next one is ready, however much is consumed.
    await flush();
    await drain(fresh.engine, 'order', 80);
    await flush();
    expect(fresh.store.allocateCalls).toHaveLength(2);
    expect(fresh.engine.snapshot('order')?.pending).toMatchObject({ start: '102', max: '301', step: 200 });

    // Switch on exhaustion: 2..101 used up, the next ID is the pending segment's first.
    expect(await drain(fresh.engine, 'order', 9)).toEqual(range(92, 100));
    const [last, firstOfNext] = await drain(fresh.engine, 'order', 2);
    expect(last).toBe(101);
    expect(firstOfNext).toBe(102);
    expect(fresh.engine.snapshot('order')?.current).toMatchObject({ start: '102', max: '301' });
  });

  it('does not start a second load while one is in flight', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 100 }]);
    await engine.nextId('order');
    store.hold = true;
    await drain(engine, 'order', 50);
    expect(store.allocateCalls).toHaveLength(2);
    expect(engine.snapshot('order')?.loading).toBe(true);
    store.release();
    await flush();
    expect(engine.snapshot('order')?.loading).toBe(false);
    expect(engine.snapshot('order')?.pending).not.toBeNull();
  });

  it('concurrent requests at a segment boundary share one load and get distinct IDs', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 10 }]);
    store.hold = true;
    const first = engine.nextId('order'); // first load held
    const waiters = Array.from({ length: 30 }, () => engine.nextId('order'));
    expect(store.allocateCalls).toHaveLength(1);
    store.release();
    const ids = (await Promise.all([first, ...waiters])).map(Number);
    expect(new Set(ids).size).toBe(31);
    expect([...ids].sort((a, b) => a - b)).toEqual(range(2, 32));
    // 10 from the first segment, 20 from the doubled second, then the third: every load accounted for.
    expect(store.allocateCalls.map((c) => c.step)).toEqual([undefined, 20, 40]);
  });

  it('a batch spans segments and stays increasing', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 10 }]);
    const ids = await engine.takeIds('order', 45);
    expect(ids).toEqual(range(2, 46));
    // Three segments served the batch (10 + 20 + 15 of 40); the third passed 10%, so the fourth is preloaded.
    await flush();
    expect(store.allocateCalls.map((c) => c.step)).toEqual([undefined, 20, 40, 80]);
    expect(store.rows.get('order')?.maxId).toBe(151);
    expect(engine.snapshot('order')?.pending).toMatchObject({ start: '72', max: '151' });
  });

  it('rejects counts that are not positive integers', async () => {
    const { engine } = await setup();
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => engine.takeIds('order', bad)).toThrow(LeafError);
    }
  });
});

describe('SegmentEngine: dynamic step', () => {
  async function loadAfter(minutes: number, start = 100) {
    const { store, clock, engine } = await setup([{ bizTag: 'order', step: start }]);
    await engine.nextId('order'); // load 1 at t0, DB step
    clock.advance(minutes * MIN);
    await drain(engine, 'order', start); // crosses 10% → load 2
    await flush();
    return store.allocateCalls.map((c) => c.step);
  }

  it('doubles when the previous load was under 15 minutes ago', async () => {
    expect(await loadAfter(5)).toEqual([undefined, 200]);
  });

  it('keeps the step between 15 and 30 minutes', async () => {
    expect(await loadAfter(20)).toEqual([undefined, 100]);
  });

  it('halves after 30 minutes but never below the DB step', async () => {
    const { store, clock, engine } = await setup([{ bizTag: 'order', step: 100 }]);
    await engine.nextId('order');
    await drain(engine, 'order', 100); // load 2: 200 (fast)
    await flush();
    await drain(engine, 'order', 100); // switch to 200-segment, preload → 400
    await flush();
    clock.advance(45 * MIN);
    await drain(engine, 'order', 400); // load 4 after 45 minutes: 400 → 200
    await flush();
    clock.advance(45 * MIN);
    await drain(engine, 'order', 400);
    await flush();
    clock.advance(45 * MIN);
    await drain(engine, 'order', 400);
    await flush();
    const steps = store.allocateCalls.map((c) => c.step);
    // fast, fast, then 45 minutes → halve, 45 minutes → halve to the DB step; never below it.
    expect(steps.slice(0, 5)).toEqual([undefined, 200, 400, 200, 100]);
    expect(Math.min(...(steps.slice(1) as number[]))).toBeGreaterThanOrEqual(100);
  });

  it('caps doubling at 1,000,000', async () => {
    const { store, engine } = await setup([{ bizTag: 'big', step: 400_000 }]);
    await engine.nextId('big');
    await drain(engine, 'big', 40_000);
    await flush();
    const ids = await engine.takeIds('big', 400_000 + 800_000 - 40_001);
    expect(ids.length).toBe(1_159_999);
    await flush();
    expect(store.allocateCalls.map((c) => c.step)).toEqual([undefined, 800_000, 1_000_000]);
  });

  it('picks up a raised DB step on the next tag refresh', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 100 }]);
    await engine.nextId('order');
    store.rows.get('order')!.step = 1000;
    await engine.refreshTags();
    await drain(engine, 'order', 10);
    await flush();
    expect(store.allocateCalls.map((c) => c.step)).toEqual([undefined, 1000]);
  });
});

describe('SegmentEngine: failures', () => {
  it('a failed first load rejects with store_unavailable, and the next request retries', async () => {
    const { store, engine } = await setup();
    store.failWith = new Error('ECONNREFUSED');
    const err = await rejection(engine.nextId('order'));
    expect(err).toBeInstanceOf(LeafError);
    expect(err.code).toBe('store_unavailable');
    expect(err.status).toBe(503);
    store.failWith = null;
    expect(await engine.nextId('order')).toBe(2);
    expect(store.allocateCalls).toHaveLength(2);
  });

  it('keeps serving the current segment while background loads fail, then retries after backoff', async () => {
    const { store, clock, engine } = await setup([{ bizTag: 'order', step: 100 }]);
    await engine.nextId('order');
    store.failWith = new Error('db down');
    await drain(engine, 'order', 20);
    await flush();
    expect(store.allocateCalls).toHaveLength(2); // one failed preload, no retry storm
    expect(engine.snapshot('order')?.lastError).toMatch(/unreachable/);
    await drain(engine, 'order', 20);
    await flush();
    expect(store.allocateCalls).toHaveLength(2); // still in backoff
    clock.advance(1_000);
    store.failWith = null;
    await drain(engine, 'order', 1);
    await flush();
    expect(store.allocateCalls).toHaveLength(3);
    expect(engine.snapshot('order')?.pending).not.toBeNull();
  });

  it('when both segments are empty and the store is down, requests fail fast with a typed error', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 10 }]);
    await engine.takeIds('order', 10);
    await flush();
    store.hold = true;
    await engine.takeIds('order', 20); // second segment used up; its successor's load is held…
    store.failWith = new Error('db down');
    store.release(); // …and fails
    await flush();
    expect(engine.snapshot('order')?.current?.remaining).toBe(0);
    expect(engine.snapshot('order')?.pending).toBeNull();
    const errors = await Promise.all(Array.from({ length: 5 }, () => rejection(engine.nextId('order'))));
    expect(errors.map((e) => e.code)).toEqual(Array(5).fill('store_unavailable'));
  });

  it('a load that hangs is awaited only for the bounded wait (default 1 s), then segment_unavailable', async () => {
    const store = new FakeStore([{ bizTag: 'order', step: 10 }]);
    const clock = new FakeClock();
    const engine = new SegmentEngine({ store, clock, refreshIntervalMs: 0 }); // the default wait
    await engine.start();
    store.hold = true;
    let settled: LeafError | number | undefined;
    const waiting = outcome(() => engine.takeIds('order', 1)).then(
      ([id]) => (settled = Number(id)),
      (e: LeafError) => (settled = e),
    );
    await flush();
    expect(store.heldCount).toBe(1);
    clock.advance(999);
    await flush();
    expect(settled).toBeUndefined(); // still within the bound
    clock.advance(1);
    await waiting;
    expect(settled).toMatchObject({ code: 'segment_unavailable', status: 503 });
    expect((settled as LeafError).message).toMatch(/within 1000 ms/);
    expect(engine.snapshot('order')).toMatchObject({ waits: 1, failedRequests: 1, loading: true });
    store.release();
    await flush();
    expect(await engine.nextId('order')).toBe(2);
    expect(clock.pendingTimers).toBe(0); // the wait's timer is cleared once the load lands
  });

  it('a load that lands within the wait clears its timer and serves the waiter', async () => {
    const { store, clock, engine } = await setup([{ bizTag: 'order', step: 10 }], { loadWaitMs: 1_000 });
    store.hold = true;
    const waiting = engine.nextId('order');
    await flush();
    clock.advance(500);
    store.release();
    expect(await waiting).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it('refuses a segment at or below an ID it already claimed (row moved backwards)', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 10 }]);
    const before = await engine.takeIds('order', 10);
    expect(before.at(-1)).toBe(11);
    await flush(); // the preloaded segment 12..31 is pending
    store.rows.get('order')!.maxId = 1; // restored from an old backup
    await engine.takeIds('order', 20); // serves the pending 12..31
    const err = await rejection(engine.nextId('order'));
    expect(err.code).toBe('segment_regressed');
    expect(engine.snapshot('order')?.current?.max).toBe('31');
  });

  it('refuses an allocation whose max_id is a number beyond 2^53 (a rounded value, not an exact one)', async () => {
    const store = new FakeStore([{ bizTag: 'huge', step: 10 }]);
    store.allocate = async (bizTag) => ({ bizTag, maxId: 2 ** 53 + 10, step: 10, semantics: 'leaf-ts' });
    const engine = new SegmentEngine({ store, refreshIntervalMs: 0 });
    await engine.start();
    expect((await rejection(engine.nextId('huge'))).code).toBe('id_space_exhausted');
  });
});

describe('SegmentEngine: tag cache', () => {
  it('unknown tag is tag_not_found (404), after the next allowed re-read of the tag list', async () => {
    const { store, clock, engine } = await setup();
    const before = store.listCalls;
    let settled = false;
    const pending = rejection(engine.nextId('nope')).finally(() => (settled = true));
    await flush();
    clock.advance(999);
    await flush();
    expect(settled).toBe(false); // the start's read was just now: the miss waits for the next one
    clock.advance(1);
    const err = await pending;
    expect(err.code).toBe('tag_not_found');
    expect(err.status).toBe(404);
    expect(store.listCalls).toBe(before + 1);
  });

  it('a tag created through another node right after a re-read is served by the next one, within a second', async () => {
    const { store, clock, engine } = await setup();
    await store.createTag({ bizTag: 'fresh', step: 5 });
    const id = engine.nextId('fresh');
    await flush();
    clock.advance(1_000);
    expect(await id).toBe(2);
  });

  it('a tag created after start is found by a miss-triggered re-read; a flood of misses costs one read per second', async () => {
    const { store, clock, engine } = await setup();
    const before = store.listCalls;
    clock.advance(2_000);
    await store.createTag({ bizTag: 'fresh', step: 5 });
    expect(await engine.nextId('fresh')).toBe(2);
    expect(store.listCalls).toBe(before + 1);
    // Misses right after a re-read all wait for the one next read, a second later.
    const misses = Array.from({ length: 50 }, (_, i) => rejection(engine.nextId(`ghost${i % 5}`)));
    await flush();
    expect(store.listCalls).toBe(before + 1);
    clock.advance(1_000);
    const errors = await Promise.all(misses);
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(['tag_not_found']));
    expect(store.listCalls).toBe(before + 2);
    // And the next flood waits for the read after that.
    const again = rejection(engine.nextId('ghost0'));
    await flush();
    expect(store.listCalls).toBe(before + 2);
    clock.advance(1_000);
    expect((await again).code).toBe('tag_not_found');
    expect(store.listCalls).toBe(before + 3);
  });

  it('a miss during a re-read already in flight waits for the next one too (the one in flight may predate the tag)', async () => {
    const { store, clock, engine } = await setup();
    clock.advance(5_000);
    const inFlight = engine.refreshTags(); // read the list before the tag exists
    await store.createTag({ bizTag: 'late', step: 5 });
    const id = engine.nextId('late');
    await inFlight;
    await flush();
    clock.advance(1_000);
    expect(await id).toBe(2);
  });

  it('a deleted tag goes on refresh', async () => {
    const { store, clock, engine } = await setup();
    await engine.nextId('order');
    store.rows.delete('order');
    clock.advance(60_000);
    await engine.refreshTags();
    expect(engine.tags()).toEqual([]);
    const gone = rejection(engine.nextId('order'));
    await flush();
    clock.advance(1_000);
    expect((await gone).code).toBe('tag_not_found');
  });

  it('store down at start: requests say store_unavailable, and it recovers on its own', async () => {
    const store = new FakeStore([{ bizTag: 'order', step: 10 }]);
    store.failWith = new Error('down');
    const clock = new FakeClock();
    const engine = new SegmentEngine({ store, clock, refreshIntervalMs: 0 });
    await engine.start();
    const down = rejection(engine.nextId('order'));
    await flush();
    clock.advance(1_000);
    expect((await down).code).toBe('store_unavailable');
    store.failWith = null;
    clock.advance(1_000);
    expect(await engine.nextId('order')).toBe(2);
  });
});

describe('SegmentEngine: timers go through the injected clock', () => {
  it('re-reads the tag list every refresh interval, and stop() ends it', async () => {
    const store = new FakeStore([{ bizTag: 'order', step: 10 }]);
    const clock = new FakeClock();
    const engine = new SegmentEngine({ store, clock, refreshIntervalMs: 60_000 });
    await engine.start();
    expect(store.listCalls).toBe(1);
    await store.createTag({ bizTag: 'later', step: 5 });
    clock.advance(59_999);
    await flush();
    expect(store.listCalls).toBe(1);
    clock.advance(1);
    await flush();
    expect(store.listCalls).toBe(2);
    expect(engine.tags()).toEqual(['later', 'order']);
    engine.stop();
    clock.advance(120_000);
    await flush();
    expect(store.listCalls).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('SegmentEngine: onLoad', () => {
  it('reports every load, ok and failed, with its step and duration on the clock', async () => {
    const store = new FakeStore([{ bizTag: 'order', step: 10 }]);
    const clock = new FakeClock();
    const loads: Array<{ bizTag: string; ok: boolean; step: number; durationMs: number; error?: string }> = [];
    const engine = new SegmentEngine({
      store,
      clock,
      refreshIntervalMs: 0,
      onLoad: (bizTag, r) => loads.push({ bizTag, ...r }),
    });
    await engine.start();
    store.hold = true;
    const first = engine.nextId('order');
    await flush();
    clock.advance(7);
    store.release();
    await first;
    await flush(); // the preload (step doubled: the last load was just now) lands
    store.failWith = new Error('db down');
    await rejection(engine.takeIds('order', 40));
    expect(loads).toEqual([
      { bizTag: 'order', at: expect.any(Number), purpose: 'segment', ok: true, step: 10, durationMs: 7 },
      { bizTag: 'order', at: expect.any(Number), purpose: 'segment', ok: true, step: 20, durationMs: 0 },
      {
        bizTag: 'order',
        at: expect.any(Number),
        purpose: 'segment',
        ok: false,
        step: 40,
        durationMs: 0,
        error: 'store_unavailable',
      },
    ]);
    expect(engine.snapshot('order')).not.toHaveProperty('loads');
  });
});
