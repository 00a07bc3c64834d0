import { describe, expect, it } from 'vitest';
import { MAX_LEASE_COUNT } from '@/lib/bizTag';
import type { LeafError } from '@/lib/errors';
import { SegmentEngine } from '@/lib/segment/engine';
import type { IdRanges } from '@/lib/segment/idRanges';
import { type Id, MAX_ID } from '@/lib/segment/id';
import type { Semantics } from '@/lib/segment/semantics';
import { FakeClock, FakeStore, flush } from '../support/fakes';
import { defined } from '../support/defined';

async function setup(
  tags: Array<{ bizTag: string; step: number; maxId?: Id }> = [{ bizTag: 'order', step: 100 }],
  semantics: Semantics = 'leaf-ts',
) {
  const store = new FakeStore(tags);
  store.defaultSemantics = semantics;
  const clock = new FakeClock();
  const engine = new SegmentEngine({ store, clock, refreshIntervalMs: 0, loadWaitMs: 200 });
  await engine.start();
  return { store, clock, engine };
}

/** The lease as `[start, end]` pairs, after checking what every lease must be: exactly `count`, increasing runs. */
function runs(lease: IdRanges, count: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let total = 0;
  for (let r = 0; r < lease.bounds.length; r += 2) out.push([lease.bounds[r]!, lease.bounds[r + 1]!]);
  for (let i = 0; i < out.length; i++) {
    const [s, e] = out[i]!;
    expect(e).toBeGreaterThanOrEqual(s);
    // Runs are separate (adjacent ones are merged) and increasing.
    if (i > 0) expect(s).toBeGreaterThan(out[i - 1]![1] + 1);
    total += e - s + 1;
  }
  expect(total).toBe(count);
  expect(lease.count).toBe(count);
  return out;
}

/** Claims at once (max_id moves on the call) but holds the replies, which the test then releases in any order. */
class ReplyHoldingStore extends FakeStore {
  holdReplies = false;
  private readonly replies: Array<() => void> = [];

  override async allocate(bizTag: string, step?: number) {
    const hold = this.holdReplies;
    const allocation = await super.allocate(bizTag, step);
    if (hold) await new Promise<void>((resolve) => this.replies.push(resolve));
    return allocation;
  }

  releaseReplies(newestFirst: boolean): void {
    this.holdReplies = false;
    const replies = this.replies.splice(0);
    for (const reply of newestFirst ? replies.reverse() : replies) reply();
  }
}

async function rejection(p: () => unknown): Promise<LeafError> {
  try {
    await p();
  } catch (e) {
    return e as LeafError;
  }
  throw new Error('expected a rejection');
}

describe('SegmentEngine.leaseRanges', () => {
  it('a lease within the buffered segment is one run, synchronously once loaded, and singles continue after it', async () => {
    const { engine } = await setup();
    expect(runs(await engine.leaseRanges('order', 10), 10)).toEqual([[2, 11]]);
    const sync = engine.leaseRanges('order', 30);
    expect(sync instanceof Promise).toBe(false);
    expect(runs(sync as IdRanges, 30)).toEqual([[12, 41]]);
    expect(await engine.nextId('order')).toBe(42);
  });

  it('a lease spanning the current and the preloaded segment is one merged run when they touch', async () => {
    const { engine } = await setup();
    await engine.leaseRanges('order', 50); // 2..51, preload of 102..301 starts at 10%
    await flush();
    expect(engine.snapshot('order')?.pending).toMatchObject({ start: '102', max: '301' });
    expect(runs(await engine.leaseRanges('order', 120), 120)).toEqual([[52, 171]]);
  });

  it('a gap left by another node between segments splits the lease into two runs, still exactly count', async () => {
    const { store, engine } = await setup();
    await engine.leaseRanges('order', 95); // 2..96; the preload starts
    await flush();
    await store.allocate('order', 1000); // another node: 302..1301
    const lease = await engine.leaseRanges('order', 100); // 97..101, 102..196 (pending) — merged
    expect(runs(lease, 100)).toEqual([[97, 196]]);
    await engine.leaseRanges('order', 105); // 197..301, segment used up
    const next = await engine.leaseRanges('order', 50); // next load is above the other node's claim
    expect(runs(next, 50)[0]![0]).toBeGreaterThan(1301);
  });

  it('a lease larger than the step is claimed for itself in one run of exactly its size; the double buffer is untouched', async () => {
    const { store, engine } = await setup();
    await engine.nextId('order'); // 2; segment 2..101
    store.allocateCalls.length = 0;
    const lease = await engine.leaseRanges('order', 5_000);
    expect(runs(lease, 5_000)).toEqual([[102, 5_101]]);
    expect(store.allocateCalls).toEqual([{ bizTag: 'order', step: 5_000 }]);
    expect(engine.snapshot('order')?.current).toMatchObject({ start: '2', max: '101', next: '3', step: 100 });
    expect(await engine.nextId('order')).toBe(3); // singles go on from the buffer
    expect(engine.snapshot('order')?.issuedTotal).toBe(5_002);
  });

  it('the largest lease, 10,000,000 against a step of 100, costs one claim', async () => {
    const { store, engine } = await setup();
    const lease = await engine.leaseRanges('order', MAX_LEASE_COUNT);
    expect(runs(lease, MAX_LEASE_COUNT)).toEqual([[2, MAX_LEASE_COUNT + 1]]);
    expect(store.allocateCalls).toEqual([{ bizTag: 'order', step: MAX_LEASE_COUNT }]);
    expect(await engine.nextId('order')).toBe(MAX_LEASE_COUNT + 2); // first segment loads after the lease
  });

  it.each(['leaf', 'leaf-ts'] as const)('%s semantics: leases cover exactly what the claims own', async (semantics) => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 100, maxId: 1000 }], semantics);
    const first = semantics === 'leaf' ? 1000 : 1001; // leaf owns [max-step, max-1] of the claim to 1100
    const small = await engine.leaseRanges('order', 40);
    expect(runs(small, 40)).toEqual([[first, first + 39]]);
    const big = await engine.leaseRanges('order', 1_000); // more than available (60 + 200 pending at most) and the step
    const maxAfter = Number(store.rows.get('order')!.maxId);
    const [s, e] = defined(runs(big, 1_000)[0], 'a first run');
    expect(e - s + 1).toBe(1_000);
    expect(e).toBe(semantics === 'leaf' ? maxAfter - 1 : maxAfter);
    const rest = await engine.leaseRanges('order', 60);
    expect(runs(rest, 60)).toEqual([[first + 40, first + 99]]);
  });

  it('many leases and singles interleaved never overlap and total what was asked', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 50 }]);
    const seen = new Set<number>();
    let asked = 0;
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 300; i++) {
      if (i % 3 === 0) {
        seen.add(Number(await engine.nextId('order')));
        asked++;
        continue;
      }
      const n = 1 + (rand() % 400);
      for (const [s, e] of runs(await engine.leaseRanges('order', n), n)) for (let id = s; id <= e; id++) seen.add(id);
      asked += n;
      if (i % 7 === 0) await store.allocate('order', 13); // another node
      if (i % 5 === 0) await flush();
    }
    expect(seen.size).toBe(asked);
  });

  it('concurrent leases share one load; a direct claim answered before an older load does not trip the regression guard', async () => {
    const store = new ReplyHoldingStore([{ bizTag: 'order', step: 100 }]);
    const engine = new SegmentEngine({ store, clock: new FakeClock(), refreshIntervalMs: 0, loadWaitMs: 200 });
    await engine.start();
    await engine.leaseRanges('order', 100); // 2..101; the preload 102..301 lands
    await flush();
    store.holdReplies = true;
    await engine.leaseRanges('order', 200); // 102..301 from the pending segment; its preload claims 302..701, reply held
    const small = [engine.leaseRanges('order', 50), engine.leaseRanges('order', 60)];
    const big = engine.leaseRanges('order', 10_000); // claims 702..10701 for itself, reply held
    await flush();
    expect(store.allocateCalls.map((c) => c.step)).toEqual([undefined, 200, 400, 10_000]); // one shared load, one lease claim
    store.releaseReplies(true); // the database answers the newer claim first
    const leases = await Promise.all([...small, big]);
    expect(runs(leases[2]!, 10_000)).toEqual([[702, 10_701]]);
    const all = leases.flatMap((l, i) => runs(l, [50, 60, 10_000][i]!)).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < all.length; i++) expect(all[i]![0]).toBeGreaterThan(all[i - 1]![1]);
    expect(all[0]![0]).toBe(302);
  });

  it('bad counts are invalid_count; an unknown tag is tag_not_found', async () => {
    const { clock, engine } = await setup();
    for (const bad of [0, -1, 1.5, MAX_LEASE_COUNT + 1, Number.NaN]) {
      expect((await rejection(() => engine.leaseRanges('order', bad))).code).toBe('invalid_count');
    }
    const unknown = rejection(() => engine.leaseRanges('nope', 10));
    clock.advance(1_000);
    expect((await unknown).code).toBe('tag_not_found');
  });

  it('a store that fails: both kinds of lease are store_unavailable and count as failed requests; the buffer serves again after', async () => {
    const { store, engine } = await setup();
    store.failWith = new Error('connection refused');
    expect((await rejection(() => engine.leaseRanges('order', 50))).code).toBe('store_unavailable');
    expect((await rejection(() => engine.leaseRanges('order', 5_000))).code).toBe('store_unavailable');
    expect(engine.snapshot('order')?.failedRequests).toBe(2);
    store.failWith = null;
    expect(runs(await engine.leaseRanges('order', 50), 50)).toEqual([[2, 51]]);
  });

  it('a lease past 2^63−1 is id_space_exhausted, and one below the regression floor is refused', async () => {
    const { store, engine } = await setup([{ bizTag: 'order', step: 100, maxId: MAX_ID - 500n }]);
    expect((await rejection(() => engine.leaseRanges('order', 1_000))).code).toBe('id_space_exhausted');
    store.rows.get('order')!.maxId = 1_000;
    await engine.leaseRanges('order', 1_000); // 1001..2000
    store.rows.get('order')!.maxId = 1_500; // restored from a backup
    expect((await rejection(() => engine.leaseRanges('order', 1_000))).code).toBe('segment_regressed');
  });

  it('a direct claim that does not land within loadWaitMs fails the lease (segment_unavailable), bounded', async () => {
    const { store, clock, engine } = await setup();
    store.hold = true;
    const pending = rejection(() => engine.leaseRanges('order', 5_000));
    await flush();
    clock.advance(200);
    expect((await pending).code).toBe('segment_unavailable');
    store.release();
    await flush();
    // The late claim's IDs are skipped, never served: the next lease starts above them.
    const [s] = defined(runs(await engine.leaseRanges('order', 5_000), 5_000)[0], 'a first run');
    expect(s).toBeGreaterThan(5_001);
  });
});
