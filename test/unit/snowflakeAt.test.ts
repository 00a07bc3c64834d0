/**
 * From a time to snowflake IDs (lib/snowflake/timeBounds.ts), against the generator itself: on every layout preset
 * and a custom layout with regions and a coarse unit, IDs are issued while the clock moves on irregularly — still,
 * creeping, jumping, stepping back a little (waited out) and running a unit's sequence dry (waited out) — and for
 * every moment T of the run, every ID issued at or after T is ≥ firstAtOrAfter(T), every one issued before T is
 * ≤ lastBefore(T), and both bounds lie in T's own time unit (exact to the unit). The control: a node whose clock is
 * one unit behind the asker's breaks the bound, and the same check counts it.
 */
import { describe, expect, it } from 'vitest';
import { SnowflakeGenerator } from '@/lib/snowflake/generator';
import { DEFAULT_EPOCH_MS, SnowflakeLayout } from '@/lib/snowflake/layout';
import { momentOf, snowflakeBounds } from '@/lib/snowflake/timeBounds';
import { decodeSnowflakeId, snowflakeAt } from '@/lib/client';
import { FakeClock } from '../support/fakes';

interface Issued {
  /** The moment the ID was issued, by the asker's clock. */
  t: number;
  id: bigint;
}

/** A seeded run of one generator: `skewMs` is how far its clock is behind the one the times are recorded by. */
async function issueRun(layout: SnowflakeLayout, region: number, seed: number, skewMs = 0): Promise<Issued[]> {
  let s = seed;
  const random = () => {
    s = (s * 48271) % 2147483647;
    return s / 2147483647;
  };
  const clock = new FakeClock(DEFAULT_EPOCH_MS + 86_400_000);
  const nodeClock = { now: () => clock.now() - skewMs };
  const generator = new SnowflakeGenerator({
    workerId: Math.floor(random() * (layout.maxWorkerId + 1)),
    layout,
    region,
    epochMs: DEFAULT_EPOCH_MS,
    clock: { ...clock, now: nodeClock.now },
    random,
    sleep: async (ms) => clock.advance(Math.max(1, ms)),
  });
  const issued: Issued[] = [];
  for (let i = 0; i < 6_000; i++) {
    const r = random();
    // Mostly still or creeping; now and then a jump of several units, or a step back within the wait limit.
    if (r < 0.55) clock.t += 0;
    else if (r < 0.9) clock.t += 1 + Math.floor(random() * 3);
    else if (r < 0.97) clock.t += Math.floor(random() * 5 * layout.unitMs);
    else clock.t -= 1 + Math.floor(random() * 4);
    const next = generator.nextId();
    const id = typeof next === 'bigint' ? next : await next; // a wait ends at a later moment: the ID's
    issued.push({ t: clock.now(), id });
    // A run dry: a whole unit's sequence at one moment, each ID timed as it comes (the last ones wait a unit).
    if (random() < 0.002) {
      for (let n = 0; n < layout.maxSequence + 2; n++) {
        const x = generator.nextId();
        const dry = typeof x === 'bigint' ? x : await x;
        issued.push({ t: clock.now(), id: dry });
      }
    }
  }
  return issued;
}

/** The IDs on the wrong side of T's bounds, over every moment of the run (and one past each). */
function violations(layout: SnowflakeLayout, region: number, issued: Issued[]): string[] {
  const found: string[] = [];
  const sorted = [...issued].sort((a, b) => a.t - b.t);
  const moments = [...new Set(sorted.flatMap((x) => [x.t, x.t + 1]))];
  let k = 0;
  let maxBefore = -1n;
  // Suffix minima: the smallest ID issued at or after each position.
  const minFrom = new Array<bigint>(sorted.length + 1);
  minFrom[sorted.length] = layout.maxId + 1n;
  for (let i = sorted.length - 1; i >= 0; i--)
    minFrom[i] = sorted[i]!.id < minFrom[i + 1]! ? sorted[i]!.id : minFrom[i + 1]!;
  for (const T of moments.sort((a, b) => a - b)) {
    while (k < sorted.length && sorted[k]!.t < T) {
      if (sorted[k]!.id > maxBefore) maxBefore = sorted[k]!.id;
      k++;
    }
    const b = snowflakeBounds(layout, DEFAULT_EPOCH_MS, region, T);
    if (b.firstAtOrAfter !== null && minFrom[k]! < b.firstAtOrAfter)
      found.push(`after ${T}: ${minFrom[k]} < ${b.firstAtOrAfter}`);
    if (b.lastBefore !== null && maxBefore > b.lastBefore) found.push(`before ${T}: ${maxBefore} > ${b.lastBefore}`);
  }
  return found;
}

const LAYOUTS: Array<[string, SnowflakeLayout, number]> = [
  ['leaf', SnowflakeLayout.preset('leaf'), 0],
  ['sonyflake', SnowflakeLayout.preset('sonyflake'), 0],
  ['js-safe', SnowflakeLayout.preset('js-safe'), 0],
  [
    'custom, region 2 of 4, 1 s units',
    SnowflakeLayout.parse('time=35,region=2,worker=4,sequence=6,unit=1s') as SnowflakeLayout,
    2,
  ],
];

describe('snowflake IDs from a time, against the generator', () => {
  it.each(LAYOUTS)(
    '%s: every ID issued at or after T is ≥ firstAtOrAfter(T), every one before is ≤ lastBefore(T)',
    async (_name, layout, region) => {
      for (const seed of [11, 12345, 987654]) {
        const issued = await issueRun(layout, region, seed);
        expect(issued.length).toBeGreaterThan(6_000);
        expect(violations(layout, region, issued)).toEqual([]);
      }
    },
  );

  it.each(LAYOUTS)(
    '%s: both bounds lie in the time units of T and of T − 1 ms (exact to the unit)',
    (_name, layout, region) => {
      for (const offset of [0, 1, 7, layout.unitMs - 1, layout.unitMs, 86_400_000 + 3]) {
        const T = DEFAULT_EPOCH_MS + offset;
        const b = snowflakeBounds(layout, DEFAULT_EPOCH_MS, region, T);
        const first = layout.decompose(b.firstAtOrAfter!, DEFAULT_EPOCH_MS);
        expect(first).toMatchObject({ time: layout.unitOf(T, DEFAULT_EPOCH_MS), region, workerId: 0, sequence: 0 });
        if (offset === 0) expect(b.lastBefore).toBeNull();
        else {
          const last = layout.decompose(b.lastBefore!, DEFAULT_EPOCH_MS);
          expect(last).toMatchObject({
            time: layout.unitOf(T - 1, DEFAULT_EPOCH_MS),
            region,
            workerId: layout.maxWorkerId,
            sequence: layout.maxSequence,
          });
        }
      }
      // Before the epoch every ID is after; past the layout's end none is.
      expect(snowflakeBounds(layout, DEFAULT_EPOCH_MS, region, DEFAULT_EPOCH_MS - 5)).toMatchObject({
        firstAtOrAfter: layout.composeBase(0, region, 0),
        lastBefore: null,
      });
      const end = layout.endMs(DEFAULT_EPOCH_MS);
      if (end < 8.64e15) {
        const past = snowflakeBounds(layout, DEFAULT_EPOCH_MS, region, end + 10);
        expect(past.firstAtOrAfter).toBeNull();
        expect(layout.decompose(past.lastBefore!, DEFAULT_EPOCH_MS).time).toBe(layout.maxTime);
      }
    },
  );

  it('control: a node whose clock is one unit behind the asker’s issues below the bound, and the check finds it', async () => {
    for (const [, layout, region] of LAYOUTS) {
      const issued = await issueRun(layout, region, 11, layout.unitMs);
      expect(violations(layout, region, issued).length, layout.text).toBeGreaterThan(0);
    }
  });
});

describe('@leaf-ts/client: snowflakeAt and decodeSnowflakeId, without a server', () => {
  const leaf = SnowflakeLayout.preset('leaf');

  it('answer what the route computes, from the layout text, the epoch and the region', () => {
    const t = new Date('2026-12-07T18:00:00.123Z');
    const bounds = snowflakeBounds(leaf, DEFAULT_EPOCH_MS, 0, t.getTime());
    expect(snowflakeAt({ layout: 'leaf' }, t)).toEqual({
      firstAtOrAfter: bounds.firstAtOrAfter,
      lastBefore: bounds.lastBefore,
    });
    const id = leaf.compose(leaf.unitOf(t.getTime(), DEFAULT_EPOCH_MS), 0, 77, 5);
    expect(decodeSnowflakeId({ layout: 'leaf' }, id.toString())).toEqual({
      timestamp: t,
      timestampMs: t.getTime(),
      region: 0,
      workerId: 77,
      sequence: 5,
    });
    // Java Leaf's epoch, and a custom layout with regions.
    const java = leaf.compose(1, 0, 3, 4);
    expect(decodeSnowflakeId({ layout: 'leaf', epoch: 'leaf' }, java).timestampMs).toBe(1_288_834_974_658);
    // A preset in a fleet of regions: its worker bits give way to the region bits, as on the nodes.
    const twoRegions = leaf.forRegions(2) as SnowflakeLayout;
    const inRegion = snowflakeBounds(twoRegions, DEFAULT_EPOCH_MS, 1, t.getTime());
    expect(snowflakeAt({ layout: 'leaf', regions: 2, region: 1 }, t)).toEqual({
      firstAtOrAfter: inRegion.firstAtOrAfter,
      lastBefore: inRegion.lastBefore,
    });
    const custom = 'time=35,region=2,worker=4,sequence=6,unit=1s';
    const regional = SnowflakeLayout.parse(custom) as SnowflakeLayout;
    expect(snowflakeAt({ layout: custom, region: 3, epoch: DEFAULT_EPOCH_MS }, DEFAULT_EPOCH_MS + 5_500)).toEqual({
      firstAtOrAfter: regional.composeBase(5, 3, 0),
      lastBefore: regional.compose(5, 3, regional.maxWorkerId, regional.maxSequence),
    });
  });

  it('refuse bad options and IDs with a LeafClientError naming them', () => {
    const codeOf = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return (error as { code?: string }).code;
      }
      return 'accepted';
    };
    expect(codeOf(() => snowflakeAt({ layout: 'nope' }, 0))).toBe('invalid_options');
    expect(codeOf(() => snowflakeAt({ layout: 'leaf', region: 1 }, 0))).toBe('invalid_options');
    expect(codeOf(() => snowflakeAt({ layout: 'leaf', regions: 0 }, 0))).toBe('invalid_options');
    expect(codeOf(() => snowflakeAt({ layout: 'leaf', epoch: -1 }, 0))).toBe('invalid_options');
    expect(codeOf(() => snowflakeAt({ layout: 'leaf' }, new Date(Number.NaN)))).toBe('invalid_options');
    expect(codeOf(() => decodeSnowflakeId({ layout: 'js-safe' }, 2n ** 53n))).toBe('invalid_id');
    expect(codeOf(() => decodeSnowflakeId({ layout: 'leaf' }, '12x'))).toBe('invalid_id');
  });
});

describe('momentOf: a time as a query or a form gives it', () => {
  it('reads ISO 8601 with its zone and whole ms; refuses a time without a zone and anything else', () => {
    expect(momentOf('2026-12-07T18:00:00Z')).toBe(Date.UTC(2026, 11, 7, 18));
    expect(momentOf('2026-12-07T18:00:00.250+08:00')).toBe(Date.UTC(2026, 11, 7, 10, 0, 0, 250));
    // The '+' of an offset left unescaped in a URL arrives as a space.
    expect(momentOf('2026-12-07T18:00:00 08:00')).toBe(Date.UTC(2026, 11, 7, 10));
    expect(momentOf(' 1796670000000 ')).toBe(1_796_670_000_000);
    for (const bad of [
      '2026-12-07T18:00:00',
      '2026-12-07',
      'yesterday',
      '',
      '1e12',
      '99999999999999999',
      '2026-13-40T99:00:00Z',
    ])
      expect(momentOf(bad), bad).toBeNull();
  });
});
