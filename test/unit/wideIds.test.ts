/**
 * Segment IDs beyond 2^53, up to 2^63−1 (issue 10 part 5): the engine and the HTTP formatting on a fake store whose
 * max_id is exact (a bigint past 2^53). Every expected ID is computed with bigints, never with JS numbers.
 */
import { describe, expect, it } from 'vitest';
import type { Answer } from '@/lib/http/answer';
import { createIdHandler } from '@/lib/http/idHandler';
import { SegmentEngine } from '@/lib/segment/engine';
import { type IdRanges, runBase } from '@/lib/segment/idRanges';
import { type Id, MAX_ID, idBigint } from '@/lib/segment/id';
import type { Semantics } from '@/lib/segment/semantics';
import { type LeafError, isLeafError } from '@/lib/errors';
import type { LeafStore } from '@/lib/store/leafStore';
import { FakeClock, FakeStore, flush } from '../support/fakes';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER); // 2^53 − 1
const MIGRATED = 100000000000000000n; // 10^17, a tag migrated from Leaf

async function setup(maxId: Id, step: number, semantics: Semantics = 'leaf-ts') {
  const store = new FakeStore([{ bizTag: 'wide', step, maxId }]);
  store.defaultSemantics = semantics;
  const clock = new FakeClock();
  const engine = new SegmentEngine({ store, clock, refreshIntervalMs: 0, loadWaitMs: 200 });
  await engine.start();
  const handle = createIdHandler({
    runtime: () => ({ segments: engine, store: store as unknown as LeafStore, snowflake: null }),
  });
  const call = async (url: string): Promise<Answer> => {
    const r = handle('GET', url);
    if (r === null) throw new Error(`not routed: ${url}`);
    return r;
  };
  return { store, clock, engine, call };
}

/** `count` consecutive IDs from `first`, each in its one form: a number up to 2^53−1, a bigint above. */
function expected(first: bigint, count: number): Id[] {
  return Array.from({ length: count }, (_, i) => {
    const v = first + BigInt(i);
    return v <= SAFE ? Number(v) : v;
  });
}

/** The runs of a batch or lease as exact `[first, last]` pairs. */
function exactRuns(ranges: IdRanges): Array<[bigint, bigint]> {
  const out: Array<[bigint, bigint]> = [];
  for (let r = 0; r < ranges.bounds.length; r += 2) {
    const base = runBase(ranges, r) ?? 0n;
    out.push([base + BigInt(ranges.bounds[r]!), base + BigInt(ranges.bounds[r + 1]!)]);
  }
  return out;
}

async function drain(engine: SegmentEngine, n: number): Promise<Id[]> {
  const out: Id[] = [];
  for (let i = 0; i < n; i++) {
    const r = engine.nextId('wide');
    out.push(typeof r === 'object' ? await r : r);
    if (i % 5 === 0) await flush();
  }
  return out;
}

async function rejection(work: () => unknown): Promise<LeafError> {
  try {
    await work();
  } catch (error) {
    if (isLeafError(error)) return error;
    throw error;
  }
  throw new Error('expected a LeafError');
}

describe('IDs beyond 2^53', () => {
  it.each(['leaf-ts', 'leaf'] as const)(
    'a tag migrated at max_id 10^17 issues exact bigints in %s semantics',
    async (semantics) => {
      const { engine } = await setup(MIGRATED, 10, semantics);
      const first = semantics === 'leaf' ? MIGRATED : MIGRATED + 1n; // leaf owns [max − step, max − 1] of its claim
      const single = await engine.nextId('wide');
      expect(single).toBe(first);
      expect(typeof single).toBe('bigint');
      expect(await drain(engine, 25)).toEqual(expected(first + 1n, 25));
      expect(await engine.takeIds('wide', 40)).toEqual(expected(first + 26n, 40));
      expect(engine.snapshot('wide')?.current?.next).toBe(String(first + 66n));
    },
  );

  it('the answer of the ID routes: JSON strings (single, batch, lease) and Leaf plain text, all exact', async () => {
    const { call } = await setup(MIGRATED, 1_000);
    expect(JSON.parse((await call('/api/id/segment/wide')).body)).toEqual({ tag: 'wide', id: '100000000000000001' });
    expect((await call('/api/segment/get/wide')).body).toBe('100000000000000002');
    const batch = JSON.parse((await call('/api/id/segment/wide?count=3')).body);
    expect(batch).toEqual({ tag: 'wide', ids: ['100000000000000003', '100000000000000004', '100000000000000005'] });
    const lease = JSON.parse((await call('/api/id/segment/wide/range?count=5')).body);
    expect(lease).toEqual({
      tag: 'wide',
      count: 5,
      ranges: [{ start: '100000000000000006', end: '100000000000000010' }],
    });
  });

  it('a batch whose IDs cross a 10^9 boundary of their low digits (zero-padded after it) is written exactly', async () => {
    const { call } = await setup(MIGRATED - 6n, 100);
    const ids = JSON.parse((await call('/api/id/segment/wide?count=10')).body).ids;
    expect(ids).toEqual(expected(MIGRATED - 5n, 10).map(String));
    expect(ids).toContain('99999999999999999');
    expect(ids).toContain('100000000000000000');
  });

  it.each([
    ['just below 10^9 (first segment printed as numbers, the next by prefix)', 999_999_990n],
    ['across 10^12, a multiple of 10^9 (the prefix rolls over, the low digits restart padded)', 999_999_999_990n],
    ['just below 2^53', SAFE - 1_500n],
  ])('a batch of ordinary IDs %s is written exactly', async (_, maxId) => {
    const { call } = await setup(Number(maxId), 20);
    const got: string[] = [];
    for (let i = 0; i < 6; i++)
      got.push(...(JSON.parse((await call('/api/id/segment/wide?count=7')).body).ids as string[]));
    expect(got).toEqual(Array.from({ length: 42 }, (_, i) => String(maxId + 1n + BigInt(i))));
  });

  it('a segment that crosses 2^53 serves numbers up to 2^53−1 and exact bigints after, single and batch', async () => {
    const { engine } = await setup(SAFE - 5n, 10); // owns 2^53−5 .. 2^53+4
    const singles = await drain(engine, 5);
    expect(singles).toEqual(expected(SAFE - 4n, 5));
    expect(singles.every((id) => typeof id === 'number')).toBe(true);
    const batch = await engine.takeIds('wide', 5);
    expect(batch).toEqual([
      9007199254740992n,
      9007199254740993n,
      9007199254740994n,
      9007199254740995n,
      9007199254740996n,
    ]);
  });

  it('a tag handle serves the same exact IDs as nextId across 2^53 and at 10^17 (wide segments never take its hot path)', async () => {
    const { engine } = await setup(SAFE - 25n, 10); // ordinary segments, then wide ones from 2^53 on
    const handle = engine.tag('wide');
    const got: Id[] = [];
    for (let i = 0; i < 60; i++) {
      const r = i % 4 === 0 ? engine.nextId('wide') : handle.next();
      got.push(typeof r === 'object' ? await r : r);
      if (i % 5 === 0) await flush();
    }
    expect(got).toEqual(expected(SAFE - 24n, 60));
    expect(got.filter((id) => typeof id === 'bigint')).toHaveLength(60 - 25);

    const migrated = await setup(MIGRATED, 10);
    const wide = migrated.engine.tag('wide');
    const first = await wide.next();
    expect(first).toBe(MIGRATED + 1n);
    const rest: Id[] = [];
    for (let i = 0; i < 30; i++) {
      const r = wide.next();
      rest.push(typeof r === 'object' ? await r : r);
      if (i % 5 === 0) await flush();
    }
    expect(rest).toEqual(expected(MIGRATED + 2n, 30));
  });

  it('batches and leases across ordinary and wide segments on both sides of 2^53: exact, no overlap, runs split by base', async () => {
    const { engine, store } = await setup(SAFE - 20n, 10); // segments 2^53−20.., 2^53−10.. (ordinary), 2^53.. (wide)
    store.hold = false;
    const seen = new Set<bigint>();
    let next = SAFE - 19n;
    for (const n of [7, 9, 12, 3, 15, 20, 1, 30]) {
      const lease = await engine.leaseRanges('wide', n);
      const runs = exactRuns(lease);
      // Consecutive from where the last one ended (one node, nothing else claims), exactly n IDs.
      expect(runs[0]![0]).toBe(next);
      let total = 0n;
      for (const [s, e] of runs) {
        for (let v = s; v <= e; v++) {
          expect(seen.has(v)).toBe(false);
          seen.add(v);
        }
        total += e - s + 1n;
      }
      expect(total).toBe(BigInt(n));
      next = runs[runs.length - 1]![1] + 1n;
      // A batch of the same size right after: the same IDs a lease would have been, as a list.
      const ids = (await engine.takeIds('wide', n)).map(idBigint);
      expect(ids).toEqual(expected(next, n).map(idBigint));
      for (const v of ids) {
        expect(seen.has(v)).toBe(false);
        seen.add(v);
      }
      next += BigInt(n);
      await flush();
    }
    expect(next).toBeGreaterThan(SAFE + 50n);
  });

  it('a lease spanning an ordinary and a wide segment is two runs (different bases), contiguous and exact', async () => {
    const { engine } = await setup(SAFE - 10n, 10); // owns 2^53−10 .. 2^53−1: ordinary, it ends at 2^53−1
    expect(await engine.takeIds('wide', 1)).toEqual([Number(SAFE - 9n)]);
    await flush(); // the preload lands: 2^53 .. 2^53+19 (the step doubled: the clock stood still), wide
    const lease = await engine.leaseRanges('wide', 12);
    expect(exactRuns(lease)).toEqual([
      [SAFE - 8n, SAFE],
      [SAFE + 1n, SAFE + 3n],
    ]);
    expect(lease.bases).toEqual([null, 2n ** 53n]);
    const more = await engine.leaseRanges('wide', 5);
    expect(exactRuns(more)).toEqual([[SAFE + 4n, SAFE + 8n]]);
  });

  it('a batch and a lease across a 2^52 base boundary: separate runs, IDs contiguous and exact', async () => {
    const boundary = 2n ** 54n; // a multiple of 2^52: segments on either side count from different bases
    const { engine } = await setup(boundary - 5n, 10); // owns 2^54−4 .. 2^54+5, base 3·2^52
    await engine.takeIds('wide', 1);
    await flush(); // preload: 2^54+6 .. 2^54+15, base 2^54
    const lease = await engine.leaseRanges('wide', 12); // 2^54−3 .. 2^54+8 across the two segments
    const runs = exactRuns(lease);
    expect(runs).toEqual([
      [boundary - 3n, boundary + 5n],
      [boundary + 6n, boundary + 8n],
    ]);
    expect(lease.bases).toEqual([3n * 2n ** 52n, boundary]);
    const batch = await engine.takeIds('wide', 7);
    expect(batch).toEqual(expected(boundary + 9n, 7));
  });

  it('a step of 10,000,000 (a large lease) above 2^62 keeps every offset exact', async () => {
    const high = 2n ** 62n + 2n ** 52n - 3n; // just below a base boundary
    const { engine } = await setup(high, 10);
    // Larger than the step: claimed for itself, one segment across the boundary at 2^62 + 2^52, from base 2^62.
    const lease = await engine.leaseRanges('wide', 10_000_000);
    expect(exactRuns(lease)).toEqual([[high + 1n, high + 10_000_000n]]);
    expect(lease.bases).toEqual([2n ** 62n]);
    expect(await engine.takeIds('wide', 2)).toEqual([high + 10_000_001n, high + 10_000_002n]);
  });

  it('exhaustion at 2^63−1: serves every claimable ID, then id_space_exhausted naming 2^63−1', async () => {
    // Claims to MAX−25 and (the step doubled) MAX−5; the next, of 40, would pass it.
    const { engine, store } = await setup(MAX_ID - 35n, 10);
    const ids = await drain(engine, 30);
    expect(ids).toEqual(expected(MAX_ID - 34n, 30));
    expect(ids.at(-1)).toBe(9223372036854775802n);
    await flush();
    const error = await rejection(() => engine.nextId('wide'));
    expect(error.code).toBe('id_space_exhausted');
    expect(error.message).toContain('2^63−1');
    expect(store.rows.get('wide')?.maxId).toBe(MAX_ID - 5n);
  });

  it('an allocation past 2^63−1 or a rounded number is refused, never served', async () => {
    const { engine, store } = await setup(1, 10);
    store.allocate = async (bizTag) => ({ bizTag, maxId: MAX_ID + 1n, step: 10, semantics: 'leaf-ts' });
    expect((await rejection(() => engine.nextId('wide'))).code).toBe('id_space_exhausted');
    store.allocate = async (bizTag) => ({ bizTag, maxId: 2 ** 53 + 10, step: 10, semantics: 'leaf-ts' }); // not an exact number
    expect((await rejection(() => engine.nextId('wide'))).code).toBe('id_space_exhausted');
  });

  it('the regression guard is exact: a row put back by one ID at 10^17 is caught (a float could not tell)', async () => {
    const { engine, store } = await setup(MIGRATED, 10);
    await drain(engine, 10); // 10^17+1 .. 10^17+10; the preload (step doubled) claims 10^17+11 .. 10^17+30
    await flush();
    store.rows.get('wide')!.maxId = MIGRATED + 29n; // restored: one below what was claimed
    // The pending segment; its preload (step 40) claims 10^17+30 .. 10^17+69, which starts at an ID already claimed.
    expect(await drain(engine, 20)).toEqual(expected(MIGRATED + 11n, 20));
    await flush();
    expect(engine.snapshot('wide')?.lastError).toContain('at or below ID 100000000000000030 already claimed');
  });
});
