import { describe, expect, it } from 'vitest';
import { createSegment } from '@/lib/segment/buffer';
import { SegmentEngine } from '@/lib/segment/engine';
import { type Semantics, claimedRange, switchBump } from '@/lib/segment/semantics';
import { CONFIG_ACTOR, ensureFleetSemantics } from '@/lib/segment/fleetSemantics';
import { claimStatement, decodeClaim } from '@/lib/store/mysql/claim';
import { FakeClock, FakeStore, flush } from '../support/fakes';

describe('claim semantics', () => {
  it.each([
    // Leaf's Java server after max_id 100 → 200: value = max − step = 100, IDs while value < max.
    ['leaf', 200, 100, 100, 199],
    ['leaf-ts', 200, 100, 101, 200],
    ['leaf', 11, 10, 1, 10],
    ['leaf-ts', 11, 10, 2, 11],
  ] as const)('%s: max_id %i by %i owns %i..%i', (semantics, maxId, step, first, last) => {
    expect(claimedRange(maxId, step, semantics)).toEqual({ first, last });
    const segment = createSegment(maxId, step, semantics);
    expect([segment.start, segment.max, segment.next, segment.step]).toEqual([first, last, first, step]);
    expect(segment.preloadAt).toBe(first + Math.ceil(step * 0.1));
  });

  it('the mixed claims the hazard is about: a leaf-ts claim then a leaf claim share max_id; leaf then leaf-ts never do', () => {
    const a = claimedRange(200, 100, 'leaf-ts');
    const b = claimedRange(300, 100, 'leaf');
    expect(a.last).toBe(b.first); // 200 twice: why a fleet must agree
    const c = claimedRange(200, 100, 'leaf');
    const d = claimedRange(300, 100, 'leaf-ts');
    expect(d.first - c.last).toBe(2); // 200 skipped by nature
  });

  it.each([
    ['leaf-ts', 'leaf', 1],
    ['leaf', 'leaf-ts', 0],
    ['leaf', 'leaf', 0],
    ['leaf-ts', 'leaf-ts', 0],
  ] as const)(
    'switching %s → %s raises max_id by %i, and the first claim after starts above every ID before',
    (from, to, bump) => {
      expect(switchBump(from, to)).toBe(bump);
      const before = claimedRange(500, 50, from);
      const after = claimedRange(500 + bump + 50, 50, to);
      if (from !== to) expect(after.first).toBeGreaterThan(before.last);
    },
  );
});

/** Drains `count` IDs of `tag` from `engine` one at a time, letting loads land. */
async function drain(engine: SegmentEngine, tag: string, count: number, into: number[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    into.push(Number(await engine.nextId(tag)));
    if (i % 7 === 0) await flush();
  }
}

describe('engine in both semantics', () => {
  it.each([
    ['leaf', 30, 'segment_regressed'],
    ['leaf', 31, null],
    ['leaf-ts', 30, 'segment_regressed'],
    ['leaf-ts', 31, null],
  ] as const)(
    '%s: ranges and snapshot follow the claim; the row put back to max_id %i → %s',
    async (semantics, putBack, refusal) => {
      const store = new FakeStore([{ bizTag: 'order', step: 10, maxId: 1 }]);
      store.defaultSemantics = semantics;
      const refused: string[] = [];
      const onLoad = (_tag: string, r: { ok: boolean; error?: string }) => void (r.ok || refused.push(r.error ?? '?'));
      const engine = new SegmentEngine({ store, clock: new FakeClock(), refreshIntervalMs: 0, onLoad });
      await engine.start();
      expect(await engine.takeIds('order', 3)).toEqual(semantics === 'leaf' ? [1, 2, 3] : [2, 3, 4]);
      await flush(); // the preload (max_id 11 → 31, the step doubled) lands
      const snap = engine.snapshot('order');
      expect(snap?.current).toMatchObject(semantics === 'leaf' ? { start: '1', max: '10' } : { start: '2', max: '11' });
      expect(snap?.pending).toMatchObject(
        semantics === 'leaf' ? { start: '11', max: '30' } : { start: '12', max: '31' },
      );
      // A restored backup: 30 makes the next claim start at the highest ID already claimed (30 in leaf, 31 in
      // leaf-ts) and the guard refuses it; 31 is the row as it stands, and the next segment follows on.
      store.rows.get('order')!.maxId = putBack;
      const rest = await engine.takeIds('order', 27);
      expect(rest[rest.length - 1]).toBe(semantics === 'leaf' ? 30 : 31);
      await flush(); // the preload of the claim after the put-back has landed, or been refused
      expect(refused).toEqual(refusal === null ? [] : [refusal]);
      const [next] = await engine.takeIds('order', 1);
      // Refused: that claim's IDs are a gap and the next claim is served; otherwise the put-back claim's first ID.
      // (refused: max_id 30 → 70 was the gap, 70 → 110 serves 70.. in leaf, 71.. in leaf-ts).
      const firstOf = refusal === null ? { leaf: 31, 'leaf-ts': 32 } : { leaf: 70, 'leaf-ts': 71 };
      expect(next).toBe(firstOf[semantics]);
    },
  );

  it('two nodes and the fleet default switched leaf-ts → leaf → leaf-ts while they serve: no ID twice, no regression', async () => {
    const store = new FakeStore([{ bizTag: 'order', step: 5, maxId: 1 }]);
    const clock = new FakeClock();
    const a = new SegmentEngine({ store, clock, refreshIntervalMs: 0 });
    const b = new SegmentEngine({ store, clock, refreshIntervalMs: 0 });
    await Promise.all([a.start(), b.start()]);
    const ids: number[] = [];
    for (const to of ['leaf', 'leaf-ts', 'leaf', 'leaf-ts'] as Semantics[]) {
      await Promise.all([drain(a, 'order', 37, ids), drain(b, 'order', 23, ids)]);
      store.switchDefault(to);
    }
    await Promise.all([drain(a, 'order', 41, ids), drain(b, 'order', 29, ids)]);
    expect(ids).toHaveLength(4 * 60 + 70);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('without the skip the same switch would repeat an ID (the test above can fail)', async () => {
    const store = new FakeStore([{ bizTag: 'order', step: 5, maxId: 1 }]);
    const clock = new FakeClock();
    const a = new SegmentEngine({ store, clock, refreshIntervalMs: 0 });
    const b = new SegmentEngine({ store, clock, refreshIntervalMs: 0 });
    await Promise.all([a.start(), b.start()]);
    const ids: number[] = [];
    await drain(a, 'order', 10, ids); // leaf-ts: a serves up to max_id of its claim
    store.defaultSemantics = 'leaf'; // switched with no skip
    await drain(b, 'order', 10, ids);
    await drain(a, 'order', 40, ids); // a's preloaded leaf-ts segment ends at the max_id b's leaf claim starts at
    expect(new Set(ids).size).toBeLessThan(ids.length);
  });
});

describe('LEAF_SEGMENT_SEMANTICS at start', () => {
  it('switches the fleet default through the store (audited as the config) and logs only when it changed', async () => {
    const store = new FakeStore([{ bizTag: 'order', step: 10, maxId: 100 }]);
    const stamps: string[] = [];
    const semanticsStore = {
      getSemantics: () => store.getSemantics(),
      tagSemantics: (t: string) => store.tagSemantics(t),
      setTagSemantics: () => Promise.reject(new Error('not used')),
      setDefaultSemantics: async (to: Semantics, audit?: { actor: string }) => {
        stamps.push(audit?.actor ?? 'none');
        const before = store.defaultSemantics;
        store.switchDefault(to);
        return { before, after: to, bumped: switchBump(before, to) };
      },
    };
    const lines: Array<[string, string, unknown]> = [];
    const logger = { log: (level: string, event: string, fields?: unknown) => void lines.push([level, event, fields]) };
    await ensureFleetSemantics({ store: semanticsStore, semantics: 'leaf', nodeId: 'n1', logger, now: 0 });
    await ensureFleetSemantics({ store: semanticsStore, semantics: 'leaf', nodeId: 'n2', logger, now: 0 });
    expect(stamps).toEqual([CONFIG_ACTOR, CONFIG_ACTOR]);
    expect(store.rows.get('order')?.maxId).toBe(101);
    expect(lines).toEqual([
      ['warn', 'fleet_semantics_switched', { before: 'leaf-ts', after: 'leaf', tagsSkippedOneId: 1, by: CONFIG_ACTOR }],
    ]);
  });
});

describe('the MySQL claim statement', () => {
  // mysql2 reads the OK packet's insert id as signed 64 bits: a number while small, else a decimal string, negative
  // when bit 63 (leaf) is set — these are the values a real MariaDB 10.11 gave (test/integration/store.test.ts).
  it.each([
    [1_100, 1_100, 'leaf-ts'],
    ['-9223372036854774708', 1_100, 'leaf'], // 1100 | 2^63, read signed
    ['9223372036854775807', 9223372036854775807n, 'leaf-ts'], // 2^63 − 1
    ['-1', 9223372036854775807n, 'leaf'], // 2^63 − 1 | 2^63: every bit set
    [9007199254740991, Number.MAX_SAFE_INTEGER, 'leaf-ts'],
    ['9007199254740992', 9007199254740992n, 'leaf-ts'], // 2^53: the first value that is a bigint
    ['-9123372036854774808', 100000000000001000n, 'leaf'],
  ] as const)('LAST_INSERT_ID %s decodes to max_id %s in %s', (insertId, maxId, semantics) => {
    expect(decodeClaim(insertId, 't')).toEqual({ maxId, semantics });
  });

  it('carries the tag, the fleet default key and the 2^63−1 guard as parameters, never in the text', () => {
    const { sql: text, params } = claimStatement("x'--", 50).toSQL();
    expect(text).not.toContain("x'--");
    expect(text).toMatch(
      /LAST_INSERT_ID\(\(max_id \+ \?\) \| \(.* << 63\)\) & 9223372036854775807 WHERE biz_tag = \? AND max_id BETWEEN 0 AND \?$/,
    );
    expect(params).toEqual([50, "x'--", '*', 'leaf-ts', "x'--", 9223372036854775807n - 50n]);
  });
});
