import { describe, expect, it } from 'vitest';
import { fleetSummary, nodeTagsPage, tagFleetDetail, tagNodes, withFleet } from '@/lib/admin/fleetViews';
import { fleetTagHistory } from '@/lib/admin/fleetHistory';
import type { NodeTagHistory, TagView } from '@/lib/admin/views';
import type { NodeState, NodeTagState, NodeView } from '@/lib/fleet/types';

const T0 = Date.parse('2026-12-03T00:00:00Z');

function tagState(buffered: number, ratePerSec: number, issued = 0): NodeTagState {
  return { buffered, step: 1000, ratePerSec, next: 'ready', issued, current: buffered };
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
  encoding: 'plain',
  keyId: null,
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

describe('fleet history: each node’s own record, merged by bucket', () => {
  const B = 5_000;
  const own = (nodeId: string, rate: [number, number][], loads: NodeTagHistory['loads'] = []): NodeTagHistory => ({
    nodeId,
    instanceId: `${nodeId}-i1`,
    startedAt: T0 - 60_000,
    bucketMs: B,
    rate: rate.map(([k, ids]) => ({ t: T0 + k * B, ids })),
    loads,
  });
  const peers =
    (records: Record<string, NodeTagHistory | Error>) =>
    async (address: string): Promise<NodeTagHistory> => {
      const r = records[address];
      if (r === undefined || r instanceof Error) throw r ?? new Error('unreachable');
      return r;
    };
  const sources = (self: NodeTagHistory, records: Record<string, NodeTagHistory | Error>) => ({
    selfId: self.nodeId,
    own: self,
    readPeer: peers(records),
    bucketMs: B,
  });

  it('a burst stays in its bucket, and the sum is per bucket across nodes', async () => {
    const a = own('a', [
      [0, 10],
      [1, 11_000_000],
      [2, 0],
    ]);
    const b = own('bb', [
      [0, 5],
      [1, 5],
      [2, 5],
    ]);
    const nodes = [node('a', 'up', { order: tagState(0, 0) }), node('bb', 'up', { order: tagState(0, 0) })];
    const h = await fleetTagHistory(nodes, 'order', sources(a, { '127.0.0.1:2': b }));
    expect(h.rate).toEqual([
      { t: T0, ids: 15 },
      { t: T0 + B, ids: 11_000_005 },
      { t: T0 + 2 * B, ids: 5 },
    ]);
    expect(h.nodes.map((n) => [n.nodeId, n.missing])).toEqual([
      ['a', null],
      ['bb', null],
    ]);
  });

  it('a bucket a node did not record is unknown (null), never a zero or a share of a later total', async () => {
    const a = own('a', [
      [0, 10],
      [1, 10],
      [2, 10],
    ]);
    const late = own('bb', [[2, 7]]); // started later (or its window began later): buckets 0 and 1 are unknown
    const nodes = [node('a', 'up', { order: tagState(0, 0) }), node('bb', 'up', { order: tagState(0, 0) })];
    const h = await fleetTagHistory(nodes, 'order', sources(a, { '127.0.0.1:2': late }));
    expect(h.rate.map((p) => p.ids)).toEqual([null, null, 17]);
  });

  it('a node that does not answer makes its buckets unknown, named with why; one that never held the tag counts 0', async () => {
    const a = own('a', [
      [0, 10],
      [1, 10],
    ]);
    const nodes = [
      node('a', 'up', { order: tagState(0, 0) }),
      node('bb', 'up', { order: tagState(0, 0) }),
      node('ccc', 'up', {}),
    ];
    const h = await fleetTagHistory(
      nodes,
      'order',
      sources(a, { '127.0.0.1:2': new Error('did not answer within 2000 ms'), '127.0.0.1:3': new Error('down') }),
    );
    expect(h.rate.map((p) => p.ids)).toEqual([null, null]);
    expect(h.nodes.find((n) => n.nodeId === 'bb')?.missing).toBe('did not answer within 2000 ms');
    const withoutB = await fleetTagHistory(
      [nodes[0]!, nodes[2]!],
      'order',
      sources(a, { '127.0.0.1:3': new Error('down') }),
    );
    expect(withoutB.rate.map((p) => p.ids)).toEqual([10, 10]);
  });

  it('a stopped node counts 0 only after its goodbye; a gone one holding the tag stays unknown', async () => {
    const a = own('a', [
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
    const stopped = node('bb', 'stopped', { order: tagState(0, 0) }, T0 + B);
    const h = await fleetTagHistory([node('a', 'up', { order: tagState(0, 0) }), stopped], 'order', sources(a, {}));
    expect(h.rate.map((p) => p.ids)).toEqual([null, 1, 1]);
    expect(h.nodes[1]).toEqual({ nodeId: 'bb', state: 'stopped', history: null, missing: expect.any(String) });
    const gone = node('bb', 'gone', { order: tagState(0, 0) }, T0 + B);
    const g = await fleetTagHistory([node('a', 'up', { order: tagState(0, 0) }), gone], 'order', sources(a, {}));
    expect(g.rate.map((p) => p.ids)).toEqual([null, null, null]);
  });

  it('a node bucketing otherwise is not summed', async () => {
    const a = own('a', [[0, 1]]);
    const odd = { ...own('bb', [[0, 1]]), bucketMs: 1_000 };
    const nodes = [node('a', 'up', { order: tagState(0, 0) }), node('bb', 'up', { order: tagState(0, 0) })];
    const h = await fleetTagHistory(nodes, 'order', sources(a, { '127.0.0.1:2': odd }));
    expect(h.rate).toEqual([{ t: T0, ids: null }]);
    expect(h.nodes[1]!.missing).toMatch(/buckets by 1000 ms/);
  });

  it('gives the tag page its nodes and threshold in one', () => {
    const d = tagFleetDetail([node('a', 'up', { order: tagState(100, 1) })], 'order', 120);
    expect(d).toEqual({
      nodes: [expect.objectContaining({ nodeId: 'a', runwaySeconds: 100 })],
      runwayWarnSeconds: 120,
    });
  });
});
