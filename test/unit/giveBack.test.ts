import { describe, expect, it } from 'vitest';
import type { LeafError } from '@/lib/errors';
import type { Logger } from '@/lib/log';
import { SegmentEngine } from '@/lib/segment/engine';
import { type Id, idBigint } from '@/lib/segment/id';
import type { Semantics } from '@/lib/segment/semantics';
import { FakeClock, FakeStore, flush } from '../support/fakes';

const TAG = 'order';

async function setup(semantics: Semantics = 'leaf-ts', maxId: Id = 1, step = 100) {
  const store = new FakeStore([{ bizTag: TAG, step, maxId }]);
  store.defaultSemantics = semantics;
  const clock = new FakeClock();
  const lines: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  const logger: Logger = { log: (_level, event, fields) => lines.push({ event, fields }) };
  const engine = new SegmentEngine({ store, clock, logger, refreshIntervalMs: 0, loadWaitMs: 200 });
  await engine.start();
  return { store, clock, engine, lines };
}

/** Every ID the engine serves, as bigints, so a test can check that the next node starts above all of them. */
async function serve(engine: SegmentEngine, n: number): Promise<bigint[]> {
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) out.push(idBigint(await engine.nextId(TAG)));
  await flush();
  return out;
}

/** The first ID the next node (any node, same store) is served: where the next claim starts. */
async function nextNodesFirstId(store: FakeStore): Promise<bigint> {
  const engine = new SegmentEngine({ store, clock: new FakeClock(), refreshIntervalMs: 0 });
  await engine.start();
  return idBigint(await engine.nextId(TAG));
}

async function rejection(p: () => unknown): Promise<LeafError> {
  try {
    await p();
  } catch (e) {
    return e as LeafError;
  }
  throw new Error('expected a rejection');
}

describe.each(['leaf-ts', 'leaf'] as const)('give-back on a graceful stop (%s semantics)', (semantics) => {
  it('after single IDs, the next node starts exactly at the first ID never served', async () => {
    const { store, engine } = await setup(semantics);
    const served = await serve(engine, 5); // below the preload point: one claim
    expect(store.allocateCalls).toHaveLength(1);
    const given = await engine.close({ giveBack: true });
    const last = served[served.length - 1]!;
    expect(given).toHaveLength(1);
    expect(given[0]!.first).toBe(String(last + 1n));
    expect(await nextNodesFirstId(store)).toBe(last + 1n);
  });

  it('with an untouched preloaded segment on top, gives back it and the current tail below it', async () => {
    const { store, engine } = await setup(semantics);
    const served = await serve(engine, 30); // past 10%: the next segment is pending
    expect(store.allocateCalls).toHaveLength(2);
    const before = idBigint(store.rows.get(TAG)!.maxId);
    const given = await engine.close({ giveBack: true });
    const last = served[served.length - 1]!;
    expect(given[0]!.first).toBe(String(last + 1n));
    expect(idBigint(store.rows.get(TAG)!.maxId)).toBeLessThan(before);
    expect(await nextNodesFirstId(store)).toBe(last + 1n);
  });

  it('after batches and a lease served from the buffers, starts above every ID taken', async () => {
    const { store, engine } = await setup(semantics);
    const batch = (await engine.takeIds(TAG, 40)).map(idBigint);
    const lease = await engine.leaseRanges(TAG, 7);
    const leaseLast = BigInt(lease.bounds[lease.bounds.length - 1]!);
    await flush();
    await engine.close({ giveBack: true });
    expect(leaseLast).toBeGreaterThan(batch[batch.length - 1]!);
    expect(await nextNodesFirstId(store)).toBe(leaseLast + 1n);
  });

  it('a lease claimed for itself (handed out whole) as the latest claim: nothing is given back', async () => {
    const { store, engine } = await setup(semantics);
    await serve(engine, 3);
    const lease = await engine.leaseRanges(TAG, 500); // more than a segment: its own claim, the latest
    const leaseLast = BigInt(lease.bounds[1]!);
    const before = store.rows.get(TAG)!.maxId;
    expect(await engine.close({ giveBack: true })).toEqual([]);
    expect(store.rows.get(TAG)!.maxId).toBe(before);
    expect(await nextNodesFirstId(store)).toBeGreaterThan(leaseLast);
  });

  it('a lease claimed for itself between the current segment and the pending one: only the pending one goes back', async () => {
    const { store, engine } = await setup(semantics);
    const served = await serve(engine, 3);
    const lease = await engine.leaseRanges(TAG, 500); // its own claim, right above the current segment
    const leaseLast = BigInt(lease.bounds[1]!);
    served.push(...(await serve(engine, 20))); // past 10%: the pending segment is claimed above the lease
    expect(store.allocateCalls).toHaveLength(3);
    const given = await engine.close({ giveBack: true });
    // The current segment's tail lies below the lease: giving it back would hand the lease's IDs out again.
    expect(given[0]!.first).toBe(String(leaseLast + 1n));
    expect(await nextNodesFirstId(store)).toBe(leaseLast + 1n);
    expect(leaseLast).toBeGreaterThan(served[served.length - 1]!);
  });

  it('another node claimed after this one: the compare-and-set fails, nothing is given back', async () => {
    const { store, engine, lines } = await setup(semantics);
    await serve(engine, 5);
    await store.allocate(TAG); // the other node
    const before = store.rows.get(TAG)!.maxId;
    expect(await engine.close({ giveBack: true })).toEqual([]);
    expect(store.giveBackCalls).toHaveLength(1);
    expect(store.rows.get(TAG)!.maxId).toBe(before);
    expect(lines.some((l) => l.event === 'give_back_skipped')).toBe(true);
  });

  it('a load in flight at stop is awaited: its segment was never served, so it is given back with the tail', async () => {
    const { store, engine, clock } = await setup(semantics);
    const served = await serve(engine, 1);
    store.hold = true;
    served.push(...(await serve(engine, 19))); // the preload is held in the store
    expect(store.heldCount).toBe(1);
    const closing = engine.close({ giveBack: true });
    await flush();
    clock.advance(100);
    store.release();
    const given = await closing;
    const last = served[served.length - 1]!;
    expect(given[0]!.first).toBe(String(last + 1n));
    // The tail of the first segment and the whole one that landed after the stop began (its step is dynamic).
    expect(given[0]!.count).toBe(100 - 20 + store.allocateCalls[1]!.step!);
    expect(await nextNodesFirstId(store)).toBe(last + 1n);
  });
});

describe('give-back: what must never happen', () => {
  it('a claim still in flight when the bound runs out: that tag gives nothing back', async () => {
    const { store, engine, clock } = await setup();
    await serve(engine, 1);
    store.hold = true;
    await serve(engine, 19);
    const closing = engine.close({ giveBack: true, timeoutMs: 500 });
    await flush();
    clock.advance(600);
    expect(await closing).toEqual([]);
    expect(store.giveBackCalls).toEqual([]);
    store.release(); // the claim commits late: nobody served it, and the row only went up
    await flush();
    expect(await nextNodesFirstId(store)).toBeGreaterThan(101n);
  });

  it('serves nothing once closing began, not even to a request waiting for a segment', async () => {
    const { store, engine } = await setup();
    await serve(engine, 3);
    const closing = engine.close({ giveBack: true });
    expect((await rejection(() => engine.nextId(TAG))).code).toBe('closed');
    expect((await rejection(() => engine.takeIds(TAG, 2))).code).toBe('closed');
    expect((await rejection(() => engine.leaseRanges(TAG, 1_000))).code).toBe('closed');
    expect((await rejection(() => engine.tag(TAG).next())).code).toBe('closed');
    await closing;
    expect(store.allocateCalls).toHaveLength(1);
    expect(await nextNodesFirstId(store)).toBe(5n);
  });

  it('a store that fails: nothing given back, one line, close still resolves', async () => {
    const { store, engine, lines } = await setup();
    await serve(engine, 3);
    store.giveBackFails = new Error('connection lost');
    expect(await engine.close({ giveBack: true })).toEqual([]);
    expect(lines.filter((l) => l.event === 'give_back_failed')).toHaveLength(1);
    expect(store.rows.get(TAG)!.maxId).toBe(101);
  });

  it('a store that hangs: close ends at the bound, nothing given back', async () => {
    const { store, engine, clock, lines } = await setup();
    await serve(engine, 3);
    store.giveBackHangs = true;
    let done = false;
    const closing = engine.close({ giveBack: true, timeoutMs: 1_000 }).then((g) => ((done = true), g));
    await flush();
    expect(done).toBe(false);
    clock.advance(1_000);
    expect(await closing).toEqual([]);
    expect(lines.filter((l) => l.event === 'give_back_failed')).toHaveLength(1);
  });

  it('a semantics switch after the claim moved max_id: the compare-and-set fails', async () => {
    const { store, engine } = await setup('leaf-ts');
    await serve(engine, 3);
    store.switchDefault('leaf'); // max_id + 1
    expect(await engine.close({ giveBack: true })).toEqual([]);
    expect(store.rows.get(TAG)!.maxId).toBe(102);
  });

  it('off: nothing is given back, and still nothing is served after close', async () => {
    const { store, engine } = await setup();
    await serve(engine, 3);
    expect(await engine.close({ giveBack: false })).toEqual([]);
    expect(store.giveBackCalls).toEqual([]);
    expect((await rejection(() => engine.nextId(TAG))).code).toBe('closed');
  });

  it('above 2^53 the new max_id is exact', async () => {
    const { store, engine } = await setup('leaf-ts', 2n ** 60n);
    const served = await serve(engine, 5);
    await engine.close({ giveBack: true });
    expect(store.rows.get(TAG)!.maxId).toBe(served[4]!);
    expect(await nextNodesFirstId(store)).toBe(served[4]! + 1n);
  });
});
