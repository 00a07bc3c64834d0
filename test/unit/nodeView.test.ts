import { describe, expect, it } from 'vitest';
import { nodeAnswer, nodeState, nodeView } from '@/lib/fleet/nodeView';
import { parseNodesQuery } from '@/lib/fleet/nodesQuery';
import { tagState } from '@/lib/fleet/nodeSnapshot';
import { EMPTY_SNAPSHOT, decodeSnapshot, decodeTagsOf, encodeSnapshot } from '@/lib/fleet/snapshotCodec';
import type { NodeSnapshot } from '@/lib/fleet/types';
import type { NodeRow } from '@/lib/fleet/nodeStore';

const SNAPSHOT: NodeSnapshot = {
  snowflake: { state: 'ready', workerId: 3, leaseExpiresAt: '2026-12-03T00:00:10.000Z' },
  tags: {
    order: { buffered: 1_500, step: 1_000, ratePerSec: 100, next: 'ready', issued: 500, current: 500 },
    idle: { buffered: 900, step: 1_000, ratePerSec: 0, next: 'none', issued: 100, current: 900 },
    busy: { buffered: 10, step: 10, ratePerSec: 12.34, next: 'loading', issued: 7, current: 10 },
    sick: { buffered: 0, step: 10, ratePerSec: 0, next: 'failed', issued: 0, current: null },
  },
};

function row(over: Partial<NodeRow> = {}): NodeRow {
  return {
    nodeId: 'h:1',
    instanceId: 'i-1',
    address: 'h:1',
    version: '0.1.0',
    startedAt: 1_000,
    heartbeatAt: 100_000,
    state: 'up',
    snapshot: encodeSnapshot(SNAPSHOT),
    ...over,
  };
}

describe('snapshot encoding', () => {
  it('round-trips (rates to one decimal)', () => {
    const back = decodeSnapshot(encodeSnapshot(SNAPSHOT));
    expect(back.snowflake).toEqual(SNAPSHOT.snowflake);
    expect(back.tags.busy?.ratePerSec).toBe(12.3);
    expect({ ...back.tags, busy: undefined }).toEqual({ ...SNAPSHOT.tags, busy: undefined });
    expect(back.tags.sick?.next).toBe('failed');
  });

  it('carries what is left of the current segment; a tag from an older node, without it, reads as null', () => {
    expect(decodeSnapshot(encodeSnapshot(SNAPSHOT)).tags.order?.current).toBe(500);
    const older = JSON.stringify({ v: 1, s: ['off', null, null], t: { order: [1500, 1000, 100, 0, 500] } });
    expect(decodeSnapshot(older).tags.order).toEqual({ ...SNAPSHOT.tags.order, current: null });
  });

  it('finds a few tags in the text exactly as the whole decode reads them, names with . : - _ taken literally', () => {
    const many: NodeSnapshot = { snowflake: SNAPSHOT.snowflake, tags: { ...SNAPSHOT.tags } };
    for (let i = 0; i < 500; i++)
      many.tags[`t.${i}:x-y_z`] = { ...SNAPSHOT.tags.order!, buffered: i, current: i % 3 === 0 ? null : i };
    const text = encodeSnapshot(many);
    const whole = decodeSnapshot(text).tags;
    const asked = ['order', 'sick', 't.7:x-y_z', 't.12:x-y_z', 't.1:x-y_z', 'absent', 't.7'];
    const some = decodeTagsOf(text, asked);
    expect(Object.keys(some).sort()).toEqual(['order', 'sick', 't.1:x-y_z', 't.12:x-y_z', 't.7:x-y_z'].sort());
    for (const [name, state] of Object.entries(some)) expect(state).toEqual(whole[name]);
    // A dot is a dot: "t.7" must not match "t17" or "tx7".
    expect(decodeTagsOf(encodeSnapshot({ ...many, tags: { t17: SNAPSHOT.tags.order! } }), ['t.7'])).toEqual({});
    expect(decodeTagsOf('not json', ['order'])).toEqual({});
    expect(decodeTagsOf(text, [])).toEqual({});
  });

  it("carries the node's LEAF_WORKER_IDS; a snapshot of an older node, without it, still reads", () => {
    const ranged: NodeSnapshot = { snowflake: { ...SNAPSHOT.snowflake, workerIds: '512-1023' }, tags: {} };
    expect(decodeSnapshot(encodeSnapshot(ranged)).snowflake).toStrictEqual(ranged.snowflake);
    const older = JSON.stringify({ v: 1, s: ['ready', 3, Date.parse('2026-12-03T00:00:10.000Z')], t: {} });
    expect(decodeSnapshot(older).snowflake).toStrictEqual(SNAPSHOT.snowflake);
    expect(JSON.parse(encodeSnapshot(SNAPSHOT)).s).toHaveLength(3); // nothing added for a node that has none
  });

  it('is compact: 10,000 tags take about half the plain JSON', () => {
    const big: NodeSnapshot = { snowflake: SNAPSHOT.snowflake, tags: {} };
    for (let i = 0; i < 10_000; i++)
      big.tags[`tenant-${i}.orders`] = {
        buffered: 123_456,
        step: 100_000,
        ratePerSec: 42.5,
        next: 'ready',
        issued: 9_876_543,
        current: 23_456,
      };
    const encoded = encodeSnapshot(big).length;
    expect(encoded).toBeLessThan(JSON.stringify(big).length * 0.55);
    expect(encoded).toBeLessThan(700_000);
  });

  it('an unreadable snapshot shows as empty instead of failing the node list', () => {
    expect(decodeSnapshot('not json')).toEqual(EMPTY_SNAPSHOT);
    expect(decodeSnapshot('{"v":99}')).toEqual(EMPTY_SNAPSHOT);
    expect(decodeSnapshot('')).toEqual(EMPTY_SNAPSHOT);
  });
});

describe('node state and view', () => {
  it.each<[string, Partial<NodeRow>, number, string]>([
    ['fresh heartbeat', {}, 100_000 + 10_000, 'up'],
    ['heartbeat older than goneMs', {}, 100_000 + 10_001, 'gone'],
    ['stopped, however old', { state: 'stopped' }, 100_000 + 99_999_999, 'stopped'],
    ['stopped, fresh', { state: 'stopped' }, 100_000, 'stopped'],
  ])('%s', (_name, over, dbNow, state) => {
    expect(nodeState(row(over), dbNow, 10_000)).toBe(state);
  });

  it('maps a row with ISO times and each tag its runway', () => {
    const v = nodeView(row(), 101_000, 10_000);
    expect(v).toMatchObject({
      nodeId: 'h:1',
      instanceId: 'i-1',
      state: 'up',
      startedAt: new Date(1_000).toISOString(),
      lastHeartbeat: new Date(100_000).toISOString(),
    });
    expect(v.tags.order?.runwaySeconds).toBe(15);
    expect(v.tags.idle?.runwaySeconds).toBeNull();
  });

  it('answers all tags, one tag, or none, with totals in each case', () => {
    const v = nodeView(row(), 101_000, 10_000);
    const totals = { tagsHeld: 4, idsBuffered: 1_500 + 900 + 10 };
    expect(nodeAnswer(v, undefined)).toMatchObject({ ...totals, tags: v.tags });
    expect(nodeAnswer(v, 'order')).toMatchObject({ ...totals, tags: { order: v.tags.order } });
    expect(nodeAnswer(v, 'absent').tags).toEqual({});
    const none = nodeAnswer(v, null);
    expect(none).toMatchObject(totals);
    expect('tags' in none).toBe(false);
  });

  it('reads the query: ?tag=, ?tags=none, and refuses anything else', () => {
    const q = (s: string) => parseNodesQuery(new URLSearchParams(s));
    expect(q('')).toBeUndefined();
    expect(q('tag=order')).toBe('order');
    expect(q('tags=none')).toBeNull();
    expect(() => q('tags=all')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => q('tag=order&tags=none')).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => q('tag=bad%20tag')).toThrow(expect.objectContaining({ code: 'invalid_tag' }));
  });
});

describe('a tag as the heartbeat publishes it', () => {
  const base = { bizTag: 't', minStep: 10, step: 20, lastLoadAt: 0, issuedTotal: 42, waits: 0, failedRequests: 0 };
  it.each<[string, Partial<Parameters<typeof tagState>[0]>, Partial<ReturnType<typeof tagState>>]>([
    [
      'next loaded',
      {
        current: { start: '1', max: '20', next: '16', step: 20, remaining: 5 },
        pending: { start: '21', max: '40', step: 20 },
        loading: false,
        lastError: null,
      },
      { buffered: 25, next: 'ready' },
    ],
    [
      'loading',
      {
        current: { start: '1', max: '20', next: '16', step: 20, remaining: 5 },
        pending: null,
        loading: true,
        lastError: null,
      },
      { buffered: 5, next: 'loading' },
    ],
    [
      'failed',
      {
        current: { start: '1', max: '20', next: '16', step: 20, remaining: 5 },
        pending: null,
        loading: false,
        lastError: 'down',
      },
      { buffered: 5, next: 'failed' },
    ],
    [
      'none',
      {
        current: { start: '1', max: '20', next: '16', step: 20, remaining: 5 },
        pending: null,
        loading: false,
        lastError: null,
      },
      { buffered: 5, next: 'none' },
    ],
  ])('%s', (_name, over, expected) => {
    expect(tagState({ ...base, current: null, pending: null, loading: false, lastError: null, ...over }, 3)).toEqual({
      step: 20,
      ratePerSec: 3,
      issued: 42,
      current: 5,
      ...expected,
    });
  });
});
