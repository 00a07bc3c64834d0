/**
 * Changing the region count (lib/settings/regionChange.ts): every region's rows are raised so that each ID under the
 * new count is above every ID any region issued under the old one. The case — two regions at positions 100
 * and 10,000 moved to three — collides without the raise (the control) and not with it.
 */
import { describe, expect, it } from 'vitest';
import { type RegionHoldings, planRegionChange } from '@/lib/settings/regionChange';
import { compareRegions } from '../../scripts/regions';

const db = (region: number, regions: number, tags: Record<string, bigint>, periods: Record<string, bigint> = {}) =>
  ({
    recorded: { region, regions, database: `db-${region}-${regions}` },
    tags: new Map(Object.entries(tags)),
    periods: new Map(Object.entries(periods)),
  }) satisfies RegionHoldings;

/** The IDs positions `from`..`from + n − 1` render to in region `r` of `R`. */
const ids = (from: bigint, n: number, R: number, r: number) =>
  Array.from({ length: n }, (_, i) => (from + BigInt(i)) * BigInt(R) + BigInt(r));

describe('a change of the region count', () => {
  const before = [db(0, 2, { orders: 100n }), db(1, 2, { orders: 10_000n })];
  const issued = [...ids(1n, 100, 2, 0), ...ids(1n, 10_000, 2, 1)];

  it('without the raise, region 0 under three regions repeats region 1’s IDs (the control)', () => {
    const next = ids(101n, 100, 3, 0); // its next claim, had only the record changed
    expect(next[0]).toBe(303n); // = 2 · 151 + 1, issued by region 1
    expect(next.filter((id) => issued.includes(id)).length).toBeGreaterThan(0);
  });

  it('with it, every region’s next IDs are above every ID issued under two regions, and none repeats', () => {
    const plan = planRegionChange([...before, { recorded: null, tags: new Map(), periods: new Map() }], 3, () => 'new');
    expect(plan).toMatchObject({ from: 2, to: 3 });
    expect(plan.highest.tags.get('orders')).toBe(20_001n);
    expect(plan.writes.map((w) => w.record)).toEqual([
      { region: 0, regions: 3, database: 'db-0-2' },
      { region: 1, regions: 3, database: 'db-1-2' },
      { region: 2, regions: 3, database: 'new' },
    ]);
    const after = plan.writes.flatMap((w) => ids(w.tags.get('orders')!, 1_000, 3, w.record.region));
    expect(Math.min(...after.map(Number))).toBeGreaterThan(20_001);
    expect(new Set([...after, ...issued]).size).toBe(after.length + issued.length);
    // Once more (a run cut short and started again, some databases already at three): the same floors.
    const again = planRegionChange(
      plan.writes.map((w) => ({ recorded: w.record, tags: w.tags, periods: w.periods })),
      3,
      () => 'x',
    );
    expect(again.writes.map((w) => w.tags.get('orders')! >= plan.writes[w.record.region]!.tags.get('orders')!)).toEqual(
      [true, true, true],
    );
  });

  it('turning regions on is the same move from one region; formatted periods and missing tags are raised too', () => {
    const plan = planRegionChange(
      [
        db(0, 1, { a: 500n, only_here: 7n }, { 'f\u000020261207': 42n }),
        { recorded: null, tags: new Map(), periods: new Map() },
      ],
      2,
      () => 'new',
    );
    const [zero, one] = plan.writes;
    expect(zero!.tags.get('a')! * 2n).toBeGreaterThan(500n);
    expect(one!.tags.get('only_here')! * 2n + 1n).toBeGreaterThan(7n); // a tombstone where the tag is missing
    expect(one!.periods.get('f\u000020261207')! * 2n + 1n).toBeGreaterThan(42n);
  });

  it('refuses what it cannot make safe, one line naming why', () => {
    const plan = (dbs: RegionHoldings[], to: number) => () => planRegionChange(dbs, to, () => 'n');
    expect(plan([db(0, 2, {}), db(1, 3, {})], 4)).toThrow(/different region counts/);
    expect(
      plan([db(0, 2, {}), { ...db(0, 2, {}), recorded: { region: 0, regions: 2, database: 'other' } }], 3),
    ).toThrow(/Two databases record region 0/);
    expect(plan([db(0, 3, {}), db(2, 3, {})], 4)).toThrow(/Region 1 of 3 is missing/);
    expect(plan([db(0, 3, {}), db(1, 3, {}), db(2, 3, {})], 2)).toThrow(/lowering the count drops a region/);
    expect(plan([db(0, 1, {}), { recorded: null, tags: new Map(), periods: new Map() }], 1)).toThrow(/new databases/);
    expect(plan([db(0, 1, {})], 0)).toThrow(/--to must be a region count/);
  });
});

describe('comparing the regions an operator can reach (npm run regions -- check)', () => {
  const node = (url: string, region: number, regions: number, database: string, layout = '41 bits of 1 ms') => ({
    url,
    region: { region, regions, database },
    snowflake: { state: 'ready', layoutBits: layout, epoch: '2026-01-01T00:00:00.000Z' },
  });

  it('agrees on one count, one database per number and one layout; names what it could not see', () => {
    expect(compareRegions([node('a', 0, 2, 'd0'), node('b', 1, 2, 'd1'), node('c', 1, 2, 'd1')]).ok).toBe(true);
    const partial = compareRegions([node('a', 0, 3, 'd0')]);
    expect(partial.ok).toBe(true);
    expect(partial.lines).toContain('NOT CHECKED regions 1, 2: no node of it was given');
  });

  it('finds two counts, one number on two databases, and two layouts', () => {
    expect(compareRegions([node('a', 0, 3, 'd0'), node('b', 1, 4, 'd1')]).lines.join('\n')).toMatch(
      /count differently/,
    );
    expect(compareRegions([node('a', 0, 2, 'd0'), node('b', 0, 2, 'd9')]).lines.join('\n')).toMatch(
      /served by 2 databases/,
    );
    expect(compareRegions([node('a', 0, 2, 'd0'), node('b', 1, 2, 'd1', '39 bits of 10 ms')]).lines.join('\n')).toMatch(
      /layouts or epochs differ/,
    );
  });
});
