import { describe, expect, it } from 'vitest';
import { fleetSummary, nodeTagsPage, tagFleetDetail, tagNodes, withFleet } from '@/lib/admin/fleetViews';
import { FleetRateHistory } from '@/lib/admin/fleetRates';
import type { TagView } from '@/lib/admin/views';
import type { NodeState, NodeTagState, NodeView } from '@/lib/fleet/types';
import { FakeClock } from '../support/fakes';

const T0 = Date.parse('2026-12-03T00:00:00Z');

function tagState(buffered: number, ratePerSec: number, issued = 0): NodeTagState {
  return { buffered, step: 1000, ratePerSec, next: 'ready', issued };
}

function node(
  nodeId: string,
  state: NodeState,
  tags: Record<string, NodeTagState>,
  beatAt = T0,
  instanceId = `${nodeId}-i1`,
): NodeView {
  const withRunway = Object.fromEntries(
    Object.entries(tags).map(([k, t]) => [
      k,
      { ...t, runwaySeconds: t.ratePerSec > 0 ? t.buffered / t.ratePerSec : null },
    ]),
  );
  return {
    nodeId,
    instanceId,
    address: `127.0.0.1:${nodeId.length}`,
    version: '1.0.0',
    state,
    startedAt: new Date(T0 - 60_000).toISOString(),
    lastHeartbeat: new Date(beatAt).toISOString(),
    snowflake: { state: 'off', workerId: null, leaseExpiresAt: null },
    tags: withRunway,
  };
}

const row = (bizTag: string): TagView => ({
  bizTag,
  maxId: '0',
  step: 1000,
  description: null,
  semantics: 'leaf-ts',
  ordering: 'none',
  strictSince: null,
  pending: null,
  owner: null,
  updateTime: new Date(T0).toISOString(),
  engine: null,
});

describe('fleet views', () => {
  const fleet = [
    node('a', 'up', { order: tagState(1000, 10), user: tagState(500, 0) }),
    node('b', 'up', { order: tagState(300, 30) }),
    node('c', 'gone', { order: tagState(9000, 100) }),
  ];

  it('adds each tag its fleet totals over the up nodes', () => {
    const [order, user, none] = withFleet([row('order'), row('user'), row('none')], fleet);
    expect(order!.fleet).toEqual({ nodesServing: 2, ratePerSec: 40, buffered: 1300, runwaySeconds: 10 });
    expect(user!.fleet).toEqual({ nodesServing: 1, ratePerSec: 0, buffered: 500, runwaySeconds: null });
    expect(none!.fleet).toEqual({ nodesServing: 0, ratePerSec: 0, buffered: 0, runwaySeconds: null });
  });

  it('lists the nodes holding a tag: up ones first, shortest runway first, gone ones marked', () => {
    expect(tagNodes(fleet, 'order').map((n) => [n.nodeId, n.state, n.runwaySeconds])).toEqual([
      ['b', 'up', 10],
      ['a', 'up', 100],
      ['c', 'gone', 90],
    ]);
    expect(tagNodes(fleet, 'missing')).toEqual([]);
  });

  it('sums the fleet, finds the first buffer to run dry and counts the tags below the threshold', () => {
    const s = fleetSummary(fleet, 60);
    expect(s).toEqual({
      nodes: { up: 2, gone: 1, stopped: 0 },
      ratePerSec: 40,
      idsBuffered: 1800,
      shortestRunway: { bizTag: 'order', nodeId: 'b', seconds: 10 },
      tagsBelowWarn: 1,
      runwayWarnSeconds: 60,
    });
    expect(fleetSummary(fleet, 5).tagsBelowWarn).toBe(0);
    expect(fleetSummary([], 120).shortestRunway).toBeNull();
  });

  it('pages one node’s tags with a search, shortest runway first, and 404s an unknown node', () => {
    const many = node(
      'big',
      'up',
      Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`t${i}`, tagState(1000, i)])),
    );
    const page = nodeTagsPage([many], 'big', { limit: 3 });
    expect(page.total).toBe(120);
    expect(page.tags.map((t) => t.bizTag)).toEqual(['t119', 't118', 't117']);
    const idleLast = nodeTagsPage([many], 'big', { q: 't0' });
    expect(idleLast.tags.map((t) => t.bizTag)).toEqual(['t0']);
    expect(idleLast.tags[0]!.runwaySeconds).toBeNull();
    expect(nodeTagsPage([many], 'big', { q: 'T11' }).total).toBe(11);
    expect(nodeTagsPage([many], 'big', { limit: 0 }).tags).toHaveLength(1);
    expect(() => nodeTagsPage([many], 'nope', {})).toThrow(
      expect.objectContaining({ code: 'node_not_found', status: 404 }),
    );
  });
});

describe('fleet rate history', () => {
  it('spreads the IDs between two beats of a node over the buckets they cover', () => {
    const clock = new FakeClock(T0 + 20_000);
    const rates = new FleetRateHistory({ clock });
    rates.observe('order', [node('a', 'up', { order: tagState(0, 0, 100) }, T0 + 2_500)]);
    expect(rates.history('order')).toEqual([]);
    rates.observe('order', [node('a', 'up', { order: tagState(0, 0, 100) }, T0 + 2_500)]); // the same beat again
    rates.observe('order', [node('a', 'up', { order: tagState(0, 0, 400) }, T0 + 7_500)]);
    expect(rates.history('order')).toEqual([
      {
        nodeId: 'a',
        points: [
          { t: T0, ids: 150 },
          { t: T0 + 5_000, ids: 150 },
        ],
      },
    ]);
  });

  it('keeps nodes apart, skips a restarted process, and forgets buckets older than the window', () => {
    const clock = new FakeClock(T0 + 10_000);
    const rates = new FleetRateHistory({ clock, keepMs: 60_000 });
    rates.observe('order', [
      node('a', 'up', { order: tagState(0, 0, 10) }, T0),
      node('b', 'up', { order: tagState(0, 0, 5) }, T0),
    ]);
    rates.observe('order', [
      node('a', 'up', { order: tagState(0, 0, 60) }, T0 + 5_000),
      node('b', 'up', { order: tagState(0, 0, 3) }, T0 + 5_000, 'b-i2'),
    ]);
    expect(rates.history('order')).toEqual([{ nodeId: 'a', points: [{ t: T0, ids: 50 }] }]);
    clock.advance(60_000);
    expect(rates.history('order')).toEqual([{ nodeId: 'a', points: [] }]);
  });

  it('keeps only the tags asked about most recently', () => {
    const clock = new FakeClock(T0 + 10_000);
    const rates = new FleetRateHistory({ clock, maxTags: 1 });
    for (const tag of ['x', 'y']) {
      rates.observe(tag, [node('a', 'up', { [tag]: tagState(0, 0, 0) }, T0)]);
      rates.observe(tag, [node('a', 'up', { [tag]: tagState(0, 0, 50) }, T0 + 5_000)]);
    }
    expect(rates.history('x')).toEqual([]);
    expect(rates.history('y')).toHaveLength(1);
  });

  it('gives the tag page its nodes, rate and threshold in one', () => {
    const rates = new FleetRateHistory({ clock: new FakeClock(T0) });
    const d = tagFleetDetail([node('a', 'up', { order: tagState(100, 1) })], 'order', rates, 120);
    expect(d).toEqual({
      nodes: [expect.objectContaining({ nodeId: 'a', runwaySeconds: 100 })],
      rate: [],
      runwayWarnSeconds: 120,
    });
  });
});
