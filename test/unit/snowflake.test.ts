import { describe, expect, it } from 'vitest';
import { LeafError } from '@/lib/errors';
import { SnowflakeGenerator, validate } from '@/lib/snowflake/generator';
import { DEFAULT_EPOCH_MS, MAX_SNOWFLAKE, SnowflakeLayout, decompose } from '@/lib/snowflake/layout';
import { FakeClock, clockSleep } from '../support/fakes';

const EPOCH = DEFAULT_EPOCH_MS;
const LEAF = SnowflakeLayout.LEAF;
const MAX_SEQUENCE = LEAF.maxSequence;
const compose = (t: number, w: number, s: number) => LEAF.compose(t, 0, w, s);

function gen(clock: FakeClock, opts: Partial<ConstructorParameters<typeof SnowflakeGenerator>[0]> = {}) {
  const { sleep, sleeps } = clockSleep(clock);
  const g = new SnowflakeGenerator({
    workerId: 7,
    epochMs: EPOCH,
    clock,
    random: () => 0,
    sleep,
    ...opts,
  });
  return { g, sleeps };
}

async function value(r: bigint | Promise<bigint>): Promise<bigint> {
  return typeof r === 'bigint' ? r : r;
}

describe('snowflake layout', () => {
  it('is 1 + 41 + 10 + 12 bits', () => {
    const { time, region, worker, sequence } = LEAF.bits;
    expect([time, region, worker, sequence]).toEqual([41, 0, 10, 12]);
    expect(LEAF.maxId).toBe(MAX_SNOWFLAKE);
  });

  it.each([
    [0, 0, 0],
    [1, 1, 1],
    [2 ** 41 - 1, 1023, 4095],
    [123_456_789, 512, 2048],
  ])('round-trips time %i, worker %i, sequence %i', (t, w, s) => {
    const id = compose(t, w, s);
    expect(id).toBeGreaterThanOrEqual(0n);
    expect(id).toBeLessThanOrEqual(MAX_SNOWFLAKE);
    expect(decompose(id, EPOCH)).toEqual({ timestampMs: EPOCH + t, time: t, region: 0, workerId: w, sequence: s });
  });

  it('the largest layout value is 2^63-1', () => {
    expect(compose(2 ** 41 - 1, 1023, 4095)).toBe(MAX_SNOWFLAKE);
  });
});

describe('SnowflakeGenerator', () => {
  it('encodes the clock, worker id and sequence', async () => {
    const clock = new FakeClock(EPOCH + 1_000);
    const { g } = gen(clock);
    const id = await value(g.nextId());
    expect(decompose(id, EPOCH)).toMatchObject({ timestampMs: EPOCH + 1_000, workerId: 7, sequence: 0 });
  });

  it('starts each millisecond at a random low sequence', async () => {
    const clock = new FakeClock(EPOCH + 5);
    const { g } = gen(clock, { random: () => 0.999 });
    expect(decompose(await value(g.nextId()), EPOCH).sequence).toBe(99);
    expect(decompose(await value(g.nextId()), EPOCH).sequence).toBe(100);
  });

  it('is strictly increasing within and across milliseconds', async () => {
    const clock = new FakeClock(EPOCH + 10);
    const { g } = gen(clock);
    let last = -1n;
    for (let i = 0; i < 10_000; i++) {
      if (i % 1000 === 0) clock.advance(1);
      const id = await value(g.nextId());
      expect(id > last).toBe(true);
      last = id;
    }
  });

  it('waits for the next millisecond when 4096 IDs are used in one', async () => {
    const clock = new FakeClock(EPOCH + 10);
    const { g, sleeps } = gen(clock);
    const ids: bigint[] = [];
    for (let i = 0; i <= MAX_SEQUENCE; i++) ids.push(await value(g.nextId()));
    expect(sleeps).toEqual([]);
    const r = g.nextId();
    expect(r).toBeInstanceOf(Promise); // did not spin
    const next = await r;
    expect(sleeps).toEqual([1]);
    expect(decompose(next, EPOCH)).toMatchObject({ timestampMs: EPOCH + 11, sequence: 0 });
    expect(new Set([...ids, next]).size).toBe(MAX_SEQUENCE + 2);
  });

  it('waits out a clock step back of up to 5 ms, with no duplicate and no lower ID', async () => {
    const clock = new FakeClock(EPOCH + 100);
    const { g, sleeps } = gen(clock);
    const before = await value(g.nextId());
    clock.advance(-5);
    const after = await g.nextId();
    expect(sleeps).toEqual([6]);
    expect(after > before).toBe(true);
  });

  it('refuses a larger clock step back until the clock passes the last ID', async () => {
    const clock = new FakeClock(EPOCH + 100);
    const { g } = gen(clock);
    const before = await value(g.nextId());
    clock.advance(-1_000);
    expect(() => g.nextId()).toThrow(expect.objectContaining({ code: 'clock_moved_backwards', status: 503 }));
    clock.advance(500);
    expect(() => g.nextId()).toThrow(LeafError);
    clock.advance(501);
    const after = await value(g.nextId());
    expect(after > before).toBe(true);
  });

  it('starts above a fence from the lease row', async () => {
    const clock = new FakeClock(EPOCH + 1_000);
    const { g } = gen(clock, { lastTimestampMs: EPOCH + 2_000 });
    expect(() => g.nextId()).toThrow(expect.objectContaining({ code: 'clock_moved_backwards' }));
    clock.advance(1_001);
    expect(decompose(await value(g.nextId()), EPOCH).timestampMs).toBe(EPOCH + 2_001);
  });

  it('stops at the lease reservation until it is extended', async () => {
    const clock = new FakeClock(EPOCH + 1_000);
    const { g } = gen(clock, { issueUntilMs: EPOCH + 1_010 });
    await value(g.nextId());
    clock.advance(10);
    expect(() => g.nextId()).toThrow(expect.objectContaining({ code: 'snowflake_unavailable' }));
    g.extendUntil(EPOCH + 2_000);
    expect(decompose(await value(g.nextId()), EPOCH).timestampMs).toBe(EPOCH + 1_010);
  });

  it('take(n) returns n increasing IDs across millisecond boundaries', async () => {
    const clock = new FakeClock(EPOCH + 50);
    const { g } = gen(clock);
    const ids = await g.take(10_000);
    expect(ids).toHaveLength(10_000);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });
});

describe('snowflake config validation', () => {
  const now = Date.UTC(2026, 11, 2);
  it.each([
    ['worker id -1', -1, EPOCH],
    ['worker id 1024', 1024, EPOCH],
    ['worker id 1.5', 1.5, EPOCH],
    ['epoch in the future', 0, now + 1],
    ['negative epoch', 0, -1],
  ])('refuses %s', (_name, workerId, epoch) => {
    expect(() => validate(LEAF, workerId, epoch, now)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });

  it('refuses an epoch more than 2^41 ms before now', () => {
    expect(() => validate(LEAF, 0, 0, 2 ** 41)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(() => validate(LEAF, 0, 1, 2 ** 41)).not.toThrow();
  });

  it.each([
    [0, EPOCH],
    [1023, now],
    [5, 0],
  ])('accepts worker %i, epoch %i', (workerId, epoch) => {
    expect(() => validate(LEAF, workerId, epoch, now)).not.toThrow();
  });
});

describe('SnowflakeGenerator.retire', () => {
  it('a take() awaiting the next millisecond fails after retire instead of issuing past the fence', async () => {
    const clock = new FakeClock(EPOCH + 10);
    let release!: () => void;
    const g = new SnowflakeGenerator({
      workerId: 1,
      epochMs: EPOCH,
      clock,
      random: () => 0,
      sleep: () =>
        new Promise<void>((r) => {
          release = () => {
            clock.advance(1);
            r();
          };
        }),
    });
    const taking = g.take(MAX_SEQUENCE + 10); // fills this ms, then waits for the next
    await Promise.resolve();
    const fence = g.lastTimestampMs;
    g.retire();
    release();
    await expect(taking).rejects.toMatchObject({ code: 'snowflake_unavailable' });
    expect(g.lastTimestampMs).toBe(fence);
    expect(() => g.nextId()).toThrow(expect.objectContaining({ code: 'snowflake_unavailable' }));
    g.extendUntil(EPOCH + 1_000_000); // a late renewal cannot revive it
    expect(() => g.nextId()).toThrow(LeafError);
  });
});
