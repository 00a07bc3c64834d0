import { Snowflake as SapphireSnowflake } from '@sapphire/snowflake';
import { Sonyflake } from 'sonyflake';
import { describe, expect, it } from 'vitest';
import { SnowflakeGenerator } from '@/lib/snowflake/generator';
import {
  DEFAULT_EPOCH_MS,
  LAYOUT_PRESETS,
  LEAF_EPOCH_MS,
  MAX_SAFE_ID,
  MAX_SNOWFLAKE,
  SONYFLAKE_EPOCH_MS,
  SnowflakeLayout,
  YEAR_MS,
} from '@/lib/snowflake/layout';
import { checkLifetime, lifetimeOf } from '@/lib/snowflake/lifetime';
import { FakeClock, clockSleep } from '../support/fakes';

const layoutOf = (text: string): SnowflakeLayout => {
  const parsed = SnowflakeLayout.parse(text);
  if (!(parsed instanceof SnowflakeLayout)) throw new Error(parsed.problem);
  return parsed;
};

const CUSTOM = layoutOf('time=40,region=2,worker=9,sequence=12,unit=1ms');
const ALL: Array<[string, SnowflakeLayout]> = [
  ...LAYOUT_PRESETS.map((name): [string, SnowflakeLayout] => [name, SnowflakeLayout.preset(name)]),
  ['custom', CUSTOM],
];

/** A generator on a fake clock whose sleeps move the clock, so waits are seen without real time passing. */
function generator(layout: SnowflakeLayout, clock: FakeClock, workerId: number, region = 0) {
  const { sleep, sleeps } = clockSleep(clock);
  const g = new SnowflakeGenerator({
    layout,
    workerId,
    region,
    epochMs: DEFAULT_EPOCH_MS,
    clock,
    random: () => 0.999,
    sleep,
  });
  return { g, sleeps };
}

describe('snowflake layout presets', () => {
  it('leaf is 41 bits of ms, 10 worker, 12 sequence: the largest ID is 2^63 − 1', () => {
    const leaf = SnowflakeLayout.preset('leaf');
    expect([leaf.unitMs, leaf.bits.time, leaf.bits.worker, leaf.bits.sequence]).toEqual([1, 41, 10, 12]);
    expect(leaf.maxId).toBe(MAX_SNOWFLAKE);
    expect(leaf.compose(leaf.maxTime, 0, 1023, 4095)).toBe(MAX_SNOWFLAKE);
  });

  it("sonyflake is Sony's: 39 bits of 10 ms, then an 8-bit sequence, then a 16-bit machine id", () => {
    const sony = SnowflakeLayout.preset('sonyflake');
    expect([sony.unitMs, sony.bits.time, sony.bits.sequence, sony.bits.worker]).toEqual([10, 39, 8, 16]);
    expect(sony.compose(0, 0, 1, 0)).toBe(1n); // the machine id is the lowest field
    expect(sony.compose(0, 0, 0, 1)).toBe(1n << 16n);
    expect(sony.compose(1, 0, 0, 0)).toBe(1n << 24n);
    expect(Math.floor(sony.yearsLeft(SONYFLAKE_EPOCH_MS, SONYFLAKE_EPOCH_MS))).toBe(174); // Sony's README: 174 years
  });

  it('js-safe keeps every ID, the last one included, at or below 2^53 − 1', () => {
    const safe = SnowflakeLayout.preset('js-safe');
    expect(safe.maxId).toBe(MAX_SAFE_ID);
    const last = safe.compose(safe.maxTime, 0, safe.maxWorkerId, safe.maxSequence);
    expect(last).toBe(MAX_SAFE_ID);
    expect(Number.isSafeInteger(Number(last))).toBe(true);
    expect(safe.yearsLeft(DEFAULT_EPOCH_MS, DEFAULT_EPOCH_MS)).toBeGreaterThan(100);
    expect(safe.idsPerSecond).toBe(20_480);
  });

  it.each(ALL)('%s round-trips its last unit, last region, last worker and last sequence', (_name, layout) => {
    const cases = [
      [0, 0, 0, 0],
      [layout.maxTime, layout.maxRegion, layout.maxWorkerId, layout.maxSequence],
      [layout.maxTime, 0, 0, 0],
      [0, layout.maxRegion, 0, 0],
      [0, 0, layout.maxWorkerId, 0],
      [0, 0, 0, layout.maxSequence],
      [12_345, layout.maxRegion >> 1, layout.maxWorkerId >> 1, layout.maxSequence >> 1],
    ] as const;
    for (const [time, region, worker, sequence] of cases) {
      const id = layout.compose(time, region, worker, sequence);
      expect(id).toBeLessThanOrEqual(layout.maxId);
      expect(layout.decompose(id, DEFAULT_EPOCH_MS)).toEqual({
        timestampMs: DEFAULT_EPOCH_MS + time * layout.unitMs,
        time,
        region,
        workerId: worker,
        sequence,
      });
    }
    expect(layout.compose(layout.maxTime, layout.maxRegion, layout.maxWorkerId, layout.maxSequence)).toBe(layout.maxId);
  });
});

describe('custom layouts', () => {
  it.each([
    ['time=41,worker=10,sequence=12', 'time=41,region=0,worker=10,sequence=12,unit=1ms', 1],
    [' Sequence=8, worker=14, time=39, unit=10ms, region=2 ', 'time=39,region=2,worker=14,sequence=8,unit=10ms', 10],
    ['time=31,worker=10,sequence=12,unit=1s', 'time=31,region=0,worker=10,sequence=12,unit=1000ms', 1000],
  ])('reads %j as %s', (text, canonical, unitMs) => {
    const layout = layoutOf(text);
    expect(layout.name).toBe('custom');
    expect(layout.text).toBe(canonical);
    expect(layout.unitMs).toBe(unitMs);
  });

  it('a custom layout with the bits of leaf has the same signature (the fleet check compares bits, not names)', () => {
    expect(layoutOf('time=41,worker=10,sequence=12').signature).toBe(SnowflakeLayout.preset('leaf').signature);
    expect(layoutOf('time=39,worker=16,sequence=8,unit=10ms').signature).not.toBe(
      SnowflakeLayout.preset('sonyflake').signature, // Sony puts the sequence above the machine id
    );
  });

  it.each([
    ['time=42,region=2,worker=10,sequence=12', 'the fields take 66 bits; at most 63 fit'],
    ['time=41,worker=10', 'sequence bits are missing'],
    ['time=41,worker=10,sequence=12,colour=3', 'unknown field colour'],
    ['time=41,worker=10,sequence=12,unit=2s', 'unit must be 1ms to 1000ms (got 2s)'],
    ['time=41,worker=10,sequence=12,unit=0ms', 'unit must be 1ms to 1000ms (got 0ms)'],
    ['time=41,worker=10,sequence=12,unit=fast', 'unit must be 1ms to 1000ms (got fast)'],
    ['time=19,worker=10,sequence=12', 'time needs at least 20 bits (got 19)'],
    ['time=41,worker=0,sequence=12', 'worker and sequence need at least 1 bit each'],
    ['time=30,region=17,worker=4,sequence=4', 'region takes at most 16 bits (got 17)'],
    ['time=41,time=40,worker=10,sequence=12', 'time is given twice'],
    ['twitter', '"twitter" is not name=value'],
    ['time=4x,worker=10,sequence=12', 'time must be a number of bits'],
  ])('refuses %j: %s', (text, problem) => {
    expect(SnowflakeLayout.parse(text)).toEqual({ problem });
  });
});

describe('the generator on every layout', () => {
  it.each(ALL)(
    '%s: the last sequence of a unit, then the next unit after a wait, always increasing',
    async (_n, layout) => {
      const clock = new FakeClock(DEFAULT_EPOCH_MS + 1_000 * layout.unitMs + 1);
      const { g, sleeps } = generator(layout, clock, layout.maxWorkerId, layout.maxRegion);
      const ids = await g.take(layout.maxSequence + 3);
      for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
      const first = layout.decompose(ids[0]!, DEFAULT_EPOCH_MS);
      const next = layout.decompose(ids.at(-1)!, DEFAULT_EPOCH_MS);
      // A unit holds at most maxSequence + 1 IDs (Leaf's starts at a random sequence below 100): the last is in a later unit.
      expect(next.time).toBeGreaterThan(first.time);
      expect(ids.filter((id) => layout.decompose(id, DEFAULT_EPOCH_MS).time === first.time).length).toBeLessThanOrEqual(
        layout.maxSequence + 1,
      );
      expect(next).toMatchObject({ workerId: layout.maxWorkerId, region: layout.maxRegion });
      expect(sleeps.length).toBeGreaterThan(0);
      expect(sleeps.every((ms) => ms >= 1 && ms <= layout.unitMs)).toBe(true);
    },
  );

  it.each(ALL)('%s: issues in its last unit, then refuses past it', async (_n, layout) => {
    const clock = new FakeClock(layout.endMs(DEFAULT_EPOCH_MS) - layout.unitMs);
    // validate() refuses a start past the end, so build it just before and let the clock run out.
    const { g } = generator(layout, clock, 0);
    const id = await g.nextId();
    expect(layout.decompose(id, DEFAULT_EPOCH_MS).time).toBe(layout.maxTime);
    expect(id).toBeLessThanOrEqual(layout.maxId);
    clock.advance(layout.unitMs);
    expect(() => g.nextId()).toThrow(expect.objectContaining({ code: 'snowflake_unavailable' }));
  });

  it('js-safe IDs in its last unit are still safe JS numbers', async () => {
    const layout = SnowflakeLayout.preset('js-safe');
    const clock = new FakeClock(layout.endMs(DEFAULT_EPOCH_MS) - 1);
    const { g } = generator(layout, clock, layout.maxWorkerId);
    for (const id of await g.take(layout.maxSequence + 1)) expect(Number.isSafeInteger(Number(id))).toBe(true);
  });

  it('refuses a worker id or region the layout has no room for', () => {
    const safe = SnowflakeLayout.preset('js-safe');
    expect(() => generator(safe, new FakeClock(DEFAULT_EPOCH_MS + 5), 128)).toThrow(/from 0 to 127/);
    expect(() => generator(CUSTOM, new FakeClock(DEFAULT_EPOCH_MS + 5), 0, 4)).toThrow(/region must be from 0 to 3/);
  });
});

describe('lifetime', () => {
  const sony = SnowflakeLayout.preset('sonyflake');
  it('names when the time bits run out and the years left', () => {
    const leaf = SnowflakeLayout.preset('leaf');
    expect(lifetimeOf(leaf, LEAF_EPOCH_MS, Date.UTC(2026, 0, 1))).toEqual({
      endsAt: '2080-07-10T17:30:30.209Z', // Leaf's epoch + 2^41 ms
      yearsLeft: expect.closeTo(54.5, 1),
    });
  });

  it('refuses a layout with under a year left, naming the date; a day more than a year passes', () => {
    const layout = layoutOf('time=35,worker=10,sequence=12,unit=1ms'); // 2^35 ms ≈ 398 days
    const epoch = DEFAULT_EPOCH_MS;
    const end = layout.endMs(epoch);
    expect(() => checkLifetime(layout, epoch, end - YEAR_MS - 86_400_000)).not.toThrow();
    expect(() => checkLifetime(layout, epoch, end - YEAR_MS + 86_400_000)).toThrow(
      expect.objectContaining({
        code: 'invalid_config',
        message: expect.stringContaining(`runs out in 364 days, at ${new Date(end).toISOString()}`),
      }),
    );
    expect(() => checkLifetime(layout, epoch, end + 1)).toThrow(/ran out, at/);
  });

  it('sonyflake from its own epoch lasts until 2188', () => {
    expect(lifetimeOf(sony, SONYFLAKE_EPOCH_MS, Date.UTC(2026, 0, 1)).endsAt?.slice(0, 4)).toBe('2188');
  });
});

describe('cross-checks against independent implementations from npm', () => {
  it('sonyflake: the npm package composes and decodes the same bits as our sonyflake layout', () => {
    const sony = SnowflakeLayout.preset('sonyflake');
    // The npm package counts ms where Sony counts 10 ms, so its "timestamp" is compared as time units since epoch 0.
    for (const [time, machineId, sequence] of [
      [0, 0, 0],
      [1, 1, 1],
      [sony.maxTime, 65_535, 255],
      [37_853_123_456, 4_242, 17],
    ] as const) {
      const theirs = new Sonyflake({ epoch: 0, machineId }).generateCustomId({ timestamp: time, sequence });
      expect(BigInt(theirs)).toBe(sony.compose(time, 0, machineId, sequence));
      expect(Sonyflake.decompose(theirs, { epoch: 0 })).toEqual({ timestamp: time, machineId, sequence });
    }
  });

  it('sonyflake: IDs our generator issues decode the same with the npm package', async () => {
    const sony = SnowflakeLayout.preset('sonyflake');
    const clock = new FakeClock(SONYFLAKE_EPOCH_MS + 123_456_789);
    const { sleep } = clockSleep(clock);
    const g = new SnowflakeGenerator({ layout: sony, workerId: 40_000, epochMs: SONYFLAKE_EPOCH_MS, clock, sleep });
    for (const id of await g.take(600)) {
      const ours = sony.decompose(id, SONYFLAKE_EPOCH_MS);
      expect(Sonyflake.decompose(id.toString(), { epoch: 0 })).toEqual({
        timestamp: ours.time,
        machineId: 40_000,
        sequence: ours.sequence,
      });
    }
  });

  it("leaf: @sapphire/snowflake (Twitter's layout) reads our IDs' time, worker and sequence", async () => {
    const leaf = SnowflakeLayout.preset('leaf');
    const clock = new FakeClock(LEAF_EPOCH_MS + 987_654_321);
    const { sleep } = clockSleep(clock);
    const g = new SnowflakeGenerator({ layout: leaf, workerId: 1000, epochMs: LEAF_EPOCH_MS, clock, sleep });
    const sapphire = new SapphireSnowflake(LEAF_EPOCH_MS);
    for (const id of await g.take(200)) {
      const ours = leaf.decompose(id, LEAF_EPOCH_MS);
      const theirs = sapphire.deconstruct(id);
      // Twitter's 10 machine bits are 5 of datacenter ("worker" to sapphire) and 5 of worker ("process").
      expect({
        timestampMs: Number(theirs.timestamp),
        workerId: Number((theirs.workerId << 5n) | theirs.processId),
        sequence: Number(theirs.increment),
      }).toEqual({ timestampMs: ours.timestampMs, workerId: 1000, sequence: ours.sequence });
    }
    const made = sapphire.generate({ timestamp: LEAF_EPOCH_MS + 5, workerId: 31n, processId: 8n, increment: 4095n });
    expect(made).toBe(leaf.compose(5, 0, (31 << 5) | 8, 4095));
  });
});
