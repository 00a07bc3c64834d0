import { afterEach, describe, expect, it } from 'vitest';
import { checkFloor } from '@/lib/snowflake/floor';
import { SnowflakeGenerator } from '@/lib/snowflake/generator';
import { DEFAULT_EPOCH_MS, LEAF_EPOCH_MS, SnowflakeLayout, decompose } from '@/lib/snowflake/layout';

const LEAF = SnowflakeLayout.LEAF;
const MAX_SEQUENCE = LEAF.maxSequence;
import { SnowflakeNode } from '@/lib/snowflake/node';
import { FakeClock, FakeWorkerStore, clockSleep, flush } from '../support/fakes';

/**
 * Compatibility with Leaf's snowflake (SnowflakeIDGenImpl) and the floor (LEAF_SNOWFLAKE_MIN_ID). Leaf's IDs are
 * built here from Leaf's own formula, `((timestamp - twepoch) << 22) | (workerId << 12) | sequence` with its
 * twepoch 1288834974657, never through our layout code.
 */
const TWEPOCH = 1288834974657n;
const leafId = (timestampMs: number, workerId: number, sequence: number): bigint =>
  ((BigInt(timestampMs) - TWEPOCH) << 22n) | (BigInt(workerId) << 12n) | BigInt(sequence);

const NOW = Date.UTC(2026, 11, 3, 6, 0, 0);
const nodes: SnowflakeNode[] = [];

afterEach(async () => {
  for (const n of nodes.splice(0)) await n.stop().catch(() => undefined);
});

/** A generator on the fake clock whose sleeps move the clock, so waits are asserted without real time passing. */
function gen(clock: FakeClock, opts: Partial<ConstructorParameters<typeof SnowflakeGenerator>[0]> = {}) {
  const { sleep, sleeps } = clockSleep(clock);
  const g = new SnowflakeGenerator({
    workerId: 7,
    epochMs: LEAF_EPOCH_MS,
    clock,
    random: () => 0.42,
    sleep,
    ...opts,
  });
  return { g, sleeps };
}

describe('Leaf preset (LEAF_SNOWFLAKE_EPOCH=leaf)', () => {
  it("is Leaf's twepoch", () => {
    expect(BigInt(LEAF_EPOCH_MS)).toBe(TWEPOCH);
  });

  it.each([
    ['2015', Date.UTC(2015, 5, 1, 12, 0, 0, 123), 0, 0],
    ['2019', Date.UTC(2019, 2, 14, 1, 59, 26, 535), 1023, 4095],
    ['2024', Date.UTC(2024, 9, 30, 23, 59, 59, 999), 513, 77],
  ])("decodes a Leaf ID of %s into Leaf's timestamp, worker id and sequence", (_year, ts, workerId, sequence) => {
    expect(decompose(leafId(ts, workerId, sequence), LEAF_EPOCH_MS)).toMatchObject({
      timestampMs: ts,
      workerId,
      sequence,
    });
  });

  it('issues exactly the ID Leaf would for the same millisecond, worker id and sequence', () => {
    const clock = new FakeClock(NOW);
    const { g } = gen(clock);
    // Leaf starts each millisecond at RANDOM.nextInt(100); our random 0.42 picks 42, then counts up within it.
    expect([g.nextId(), g.nextId()]).toEqual([leafId(NOW, 7, 42), leafId(NOW, 7, 43)]);
    clock.advance(1);
    expect(g.nextId()).toBe(leafId(NOW + 1, 7, 42));
  });

  it('like Leaf, a used-up millisecond moves to the next one, starting again below 100', async () => {
    const clock = new FakeClock(NOW);
    const { g, sleeps } = gen(clock);
    const ids = await g.take(MAX_SEQUENCE - 42 + 2);
    expect(ids.at(-2)).toBe(leafId(NOW, 7, MAX_SEQUENCE));
    expect(ids.at(-1)).toBe(leafId(NOW + 1, 7, 42));
    expect(sleeps).toEqual([1]);
  });
});

describe('floor (LEAF_SNOWFLAKE_MIN_ID) at start', () => {
  it('refuses a floor carrying this very millisecond: its smallest ID (worker 0, sequence 0) is not above it', () => {
    const floor = leafId(NOW, 0, 0);
    expect(() => checkFloor(floor, LEAF_EPOCH_MS, NOW, LEAF)).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
    expect(() => checkFloor(floor, LEAF_EPOCH_MS, NOW + 1, LEAF)).not.toThrow();
  });

  it('refuses a floor in the future with one line naming it, its time and how far ahead it is', () => {
    const floor = leafId(NOW + 90_000, 3, 17);
    let message = '';
    try {
      checkFloor(floor, LEAF_EPOCH_MS, NOW, LEAF);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      `LEAF_SNOWFLAKE_MIN_ID ${floor} is not below the IDs this node would issue: with the epoch 2010-11-04T01:42:54.657Z it carries 2026-12-03T06:01:30.000Z, 90 s ahead of this clock (2026-12-03T06:00:00.000Z)`,
    );
  });

  it("says to use Leaf's epoch when a Leaf-issued floor only looks ahead under ours", () => {
    const floor = leafId(NOW - 60_000, 1, 1);
    expect(() => checkFloor(floor, DEFAULT_EPOCH_MS, NOW, LEAF)).toThrow(
      /days ahead of this clock .*; a floor issued by Leaf needs LEAF_SNOWFLAKE_EPOCH=leaf$/,
    );
    expect(() => checkFloor(floor, LEAF_EPOCH_MS, NOW, LEAF)).not.toThrow();
  });

  it('a node with a floor its clock has not passed refuses to be built', () => {
    const clock = new FakeClock(NOW);
    const store = new FakeWorkerStore(clock);
    const build = (minId: bigint) => new SnowflakeNode({ store, nodeId: 'n:1', epochMs: LEAF_EPOCH_MS, minId, clock });
    expect(() => build(leafId(NOW + 5_000, 0, 0))).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(store.rows.size).toBe(0); // refused before any lease was taken
  });

  it('a node started past its floor issues above it and reports the preset and the floor', async () => {
    const clock = new FakeClock(NOW);
    const store = new FakeWorkerStore(clock);
    const floor = leafId(NOW - 3_000, 1023, MAX_SEQUENCE); // the last ID of a Leaf node, three seconds ago
    const node = new SnowflakeNode({ store, nodeId: 'n:1', epochMs: LEAF_EPOCH_MS, minId: floor, clock, leaseMs: 300 });
    nodes.push(node);
    await node.start();
    const ids = await node.take(1_000);
    expect(ids.every((id) => id > floor)).toBe(true);
    expect(node.status()).toMatchObject({ state: 'ready', epochPreset: 'leaf', minId: floor.toString() });
  });
});

describe('floor at run time: a clock step back never issues at or below it', () => {
  const FLOOR_MS = NOW - 2;
  // The highest ID of the floor's millisecond: no worker id or sequence of that millisecond is above it.
  const floor = leafId(FLOOR_MS, 1023, MAX_SEQUENCE);

  it('a generator built while the clock is far behind the floor refuses instead of issuing below it', () => {
    const clock = new FakeClock(FLOOR_MS - 1_000);
    // Without the floor this generator would issue here, below the floor: the hazard the guard prevents.
    expect(gen(clock).g.nextId()).toBeLessThan(floor);
    const { g } = gen(clock, { minId: floor });
    expect(() => g.nextId()).toThrow(expect.objectContaining({ code: 'clock_moved_backwards' }));
  });

  it.each([
    ['a few ms behind the floor', -3],
    ['at the floor millisecond', 0],
  ])('%s it waits for the next millisecond and issues above the floor', async (_name, offset) => {
    const clock = new FakeClock(FLOOR_MS + offset);
    const { g, sleeps } = gen(clock, { minId: floor, workerId: 1023 });
    const id = await g.nextId();
    expect(id > floor).toBe(true);
    expect(decompose(id, LEAF_EPOCH_MS).timestampMs).toBe(FLOOR_MS + 1);
    expect(sleeps).toEqual([1 - offset]);
  });

  it('a node whose clock steps back below the floor before it leases a worker id does not issue below it', async () => {
    const clock = new FakeClock(NOW);
    const store = new FakeWorkerStore(clock);
    // Built past the floor (the start check passes), then NTP steps the clock back while the lease is taken —
    // as on a re-lease at run time, a fresh worker id carries no fence of its own: only the floor holds it.
    const node = new SnowflakeNode({ store, nodeId: 'n:1', epochMs: LEAF_EPOCH_MS, minId: floor, clock, leaseMs: 150 });
    nodes.push(node);
    clock.advance(-2_000);
    await node.start();
    expect(node.status()).toMatchObject({ state: 'ready', fenceUntil: null });
    expect(() => node.nextId()).toThrow(expect.objectContaining({ code: 'clock_moved_backwards' }));
    for (let i = 0; i < 1_000 && clock.now() <= FLOOR_MS; i++) {
      clock.advance(10); // renewals run as the clock moves on
      await flush();
    }
    expect((await node.nextId()) > floor).toBe(true);
  });
});
