import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FleetTagHistory, NodeTagHistory, TagDetail } from '@/lib/admin/views';
import { type ServerProcess, startServer } from '../support/serverProcess';
import { takeIds, takeLease } from '../support/clientIds';
import { pollFor } from '@/tools/harness/wait';

/**
 * The console's charts against a scripted history: two real nodes on one SQLite file; node a takes 1,000 IDs/s for
 * 20 s, node b takes one 5,000,000-ID range lease, 15 s idle, a step change, a restart of a (the script had
 * 30 s of each; four and three buckets prove the same, and keep npm test inside its 15 minutes). What the charts draw
 * (the queries they draw: the tag's history, and every node's merged) must equal the script within one bucket.
 */
const TOKEN = 'contract-charts-token-0123456789';
const TAG = 'scripted';
const B = 5_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-charts-'));
const servers: ServerProcess[] = [];

const start = async (nodeId: string) => {
  const s = await startServer({
    LEAF_ADMIN_TOKEN: TOKEN,
    LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
    LEAF_NODE_ID: nodeId,
    LEAF_NODE_HEARTBEAT_MS: '200',
    LEAF_NODE_GONE_MS: '1000',
    LEAF_LOG_LEVEL: 'warn',
  });
  servers.push(s);
  return s;
};

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
});

async function read<T>(s: ServerProcess, target: string): Promise<T> {
  const r = await s.api(target);
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json()) as T;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const bucketOf = (t: number) => Math.floor(t / B) * B;

/** IDs answered per bucket, by the answer's time (an ID is issued between sending and the answer). */
type Script = { sent: number; answered: number; ids: number }[];

/**
 * Within one bucket: from the first bucket drawn to every later bucket's end, the IDs drawn lie between those the
 * script surely issued in that span (sent after it began, answered a bucket before its end) and those it may have
 * (answered after a bucket before it began, sent before a bucket after its end).
 */
function expectWithinOneBucket(points: { t: number; ids: number | null }[], script: Script) {
  expect(points.length).toBeGreaterThan(0);
  const from = points[0]!.t;
  let drawn = 0;
  for (const p of points) {
    expect(p.ids, `bucket ${p.t} is known`).not.toBeNull();
    drawn += p.ids!;
    const end = p.t + B;
    const sum = (keep: (e: Script[number]) => boolean) => script.filter(keep).reduce((s, e) => s + e.ids, 0);
    const low = sum((e) => e.sent >= from && e.answered < end - B);
    const high = sum((e) => e.answered >= from - B && e.sent < end + B);
    expect(
      drawn,
      `IDs drawn from ${new Date(from).toISOString()} to ${new Date(end).toISOString()}`,
    ).toBeGreaterThanOrEqual(low);
    expect(
      drawn,
      `IDs drawn from ${new Date(from).toISOString()} to ${new Date(end).toISOString()}`,
    ).toBeLessThanOrEqual(high);
  }
}

describe('the charts draw what happened', () => {
  it('a steady rate, a lease burst, idle time, a step change and a restart — each where it happened', async () => {
    const [a, b] = await Promise.all([start('node-a'), start('node-b')]);
    const created = await a.api('/api/admin/tags', { method: 'POST', body: { bizTag: TAG, step: 4000 } });
    expect(created.status).toBe(201);

    // 20 s at 1,000 IDs/s from a: 100 IDs every 100 ms, on a schedule (a late answer does not shift the rest).
    const script: Script = [];
    const steadyFrom = Date.now();
    for (let i = 0; i < 200; i++) {
      await sleep(steadyFrom + i * 100 - Date.now());
      const sent = Date.now();
      const ids = await takeIds(`${a.url}/api/id/segment/${TAG}?count=100`);
      script.push({ sent, answered: Date.now(), ids: ids.length });
    }
    // One 5,000,000-ID range lease from b: one burst, in one bucket.
    const leaseSent = Date.now();
    const lease = await takeLease(`${b.url}/api/id/segment/${TAG}/range?count=5000000`);
    const leaseAnswered = Date.now();
    expect(lease.count).toBe(5_000_000);
    await sleep(15_000); // idle
    const idleUntil = Date.now();

    // The tag's own history on a: the rate within one bucket of the script, idle buckets known zeros.
    // Read once the sampler has closed the idle buckets (it may lag a little on a busy machine).
    const idleIn = (d: TagDetail) => d.history.rate.filter((p) => p.t >= leaseAnswered + B && p.t + B <= idleUntil);
    const detail = await pollFor(15_000, async () => {
      const d = await read<TagDetail>(a, `/api/admin/tags/${TAG}`);
      return idleIn(d).length >= 1 ? d : undefined;
    });
    if (detail === undefined) throw new Error('no idle bucket was recorded');
    const mine = detail.history.rate.filter((p) => p.t >= bucketOf(steadyFrom) && p.t + B <= idleUntil);
    expectWithinOneBucket(mine, script);
    const idle = idleIn(detail);
    expect(idle.every((p) => p.ids === 0)).toBe(true);
    // Steps are a's segment loads; no range lease among them (b's lease is b's, and not a step).
    expect(detail.history.steps.length).toBeGreaterThan(0);
    expect(detail.history.steps.every((s) => s.step < 1_000_000)).toBe(true);

    // The fleet's merged history, read through a: b's lease lands in its own bucket (give or take one).
    // As the page does, asked again when a node was not read in time (2 s each; a busy machine can miss it).
    const fleetRead = async (via: ServerProcess): Promise<FleetTagHistory> => {
      const h = await pollFor(20_000, async () => {
        const read1 = await read<FleetTagHistory>(via, `/api/admin/tags/${TAG}/history/fleet`);
        return read1.nodes.every((n) => n.state !== 'up' || n.missing === null) ? read1 : undefined;
      });
      if (h === undefined) throw new Error('an up node was never read within 20 s');
      return h;
    };
    const fleet = await fleetRead(a);
    expect(fleet.nodes.map((n) => [n.nodeId, n.missing])).toEqual([
      ['node-a', null],
      ['node-b', null],
    ]);
    const burst = fleet.rate.filter((p) => (p.ids ?? 0) >= 5_000_000);
    expect(burst).toHaveLength(1);
    expect(burst[0]!.t).toBeGreaterThanOrEqual(bucketOf(leaseSent) - B);
    expect(burst[0]!.t).toBeLessThanOrEqual(bucketOf(leaseAnswered) + B);
    const fleetScript: Script = [...script, { sent: leaseSent, answered: leaseAnswered, ids: 5_000_000 }];
    // The nodes started a moment apart: a bucket before both had started is rightly unknown; after it, none is.
    const bothUp = fleet.rate.find((p) => p.ids !== null)!.t;
    expect(bothUp).toBeLessThanOrEqual(bucketOf(steadyFrom) + B);
    expectWithinOneBucket(
      fleet.rate.filter((p) => p.t >= Math.max(bothUp, bucketOf(steadyFrom)) && p.t + B <= idleUntil),
      fleetScript,
    );
    const bLoads = fleet.nodes.find((n) => n.nodeId === 'node-b')!.history!.loads;
    expect(bLoads.filter((l) => l.purpose === 'lease').map((l) => l.step)).toEqual([5_000_000]);

    // A step change: the next segments a loads carry the new step, after the change.
    const changedAt = Date.now();
    const patched = await a.api(`/api/admin/tags/${TAG}`, { method: 'PATCH', body: { step: 50_000 } });
    expect(patched.status).toBe(200);
    const own = await read<NodeTagHistory>(a, `/api/admin/tags/${TAG}/history`);
    const buffered = own.loads.filter((l) => l.ok && l.purpose === 'segment').reduce((s, l) => s + l.step, 0);
    for (let taken = 0; taken < buffered + 150_000; taken += 10_000)
      await takeIds(`${a.url}/api/id/segment/${TAG}?count=10000`);
    const after = await read<TagDetail>(a, `/api/admin/tags/${TAG}`);
    const newSteps = after.history.steps.filter((s) => s.t >= changedAt);
    expect(newSteps.length).toBeGreaterThan(0);
    expect(newSteps.every((s) => s.step >= 50_000)).toBe(true);

    // A restart of a: the new process claims nothing before its start, and the fleet says so with gaps.
    await a.stop();
    const restartedAt = Date.now();
    const a2 = await start('node-a');
    await takeIds(`${a2.url}/api/id/segment/${TAG}?count=100`);
    await sleep(2 * B);
    const fresh = await read<NodeTagHistory>(a2, `/api/admin/tags/${TAG}/history`);
    expect(fresh.rate.length).toBeGreaterThan(0);
    expect(fresh.rate[0]!.t).toBeGreaterThanOrEqual(restartedAt - B);
    const merged = await fleetRead(b);
    const before = merged.rate.filter((p) => p.t + B <= restartedAt);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((p) => p.ids === null)).toBe(true);
    expect(merged.rate.at(-1)!.ids).not.toBeNull();

    // The remaining-buffer chart's data, per node, right after the restart: a2's fresh segment less the 100 taken.
    const buffers = async () =>
      (await read<TagDetail>(b, `/api/admin/tags/${TAG}`)).fleet!.nodes.filter((n) => n.state === 'up');
    const afterRestart = await pollFor(10_000, async () => {
      const a2Row = (await buffers()).find((n) => n.nodeId === 'node-a');
      return a2Row !== undefined && a2Row.current !== null && a2Row.current < a2Row.step ? a2Row : undefined;
    });
    expect(afterRestart, 'node-a reports its new segment').toBeDefined();
    expect(afterRestart!.current).toBe(50_000 - 100); // its first segment after a start has the row's step
    expect(afterRestart!.buffered - afterRestart!.current!).toBeGreaterThanOrEqual(0);

    // A strict handover: once the change completes, only the owner holds a buffer of the tag.
    const strict = await a2.api(`/api/admin/tags/${TAG}`, { method: 'PATCH', body: { ordering: 'strict' } });
    expect(strict.status).toBe(200);
    await pollFor(30_000, async () =>
      (await read<TagDetail>(b, `/api/admin/tags/${TAG}`)).tag.strictSince !== null ? true : undefined,
    );
    await takeIds(`${b.url}/api/id/segment/${TAG}?count=10`);
    const owner = (await read<TagDetail>(b, `/api/admin/tags/${TAG}`)).tag.owner;
    expect(owner).not.toBeNull();
    // Each node's next heartbeat says what it holds: the owner its segment, the other nothing of this tag.
    const holders = await pollFor(10_000, async () => {
      const up = await buffers();
      return up.length === 1 && up[0]!.nodeId === owner!.nodeId ? up : undefined;
    });
    expect(holders, `one node, the owner ${owner!.nodeId}, holds the strict tag`).toHaveLength(1);

    // A give-back: a node that stopped gracefully is no longer drawn among the up nodes.
    const stopping = servers.find((s) => s.url === (holders![0]!.nodeId === 'node-a' ? a2.url : b.url))!;
    const reader = stopping === a2 ? b : a2;
    await stopping.stop();
    const left = await pollFor(10_000, async () => {
      const nodes = (await read<TagDetail>(reader, `/api/admin/tags/${TAG}`)).fleet!.nodes;
      return nodes.some((n) => n.nodeId === holders![0]!.nodeId && n.state === 'stopped') ? nodes : undefined;
    });
    expect(left, 'the stopped node shows as stopped').toBeDefined();
  }, 200_000);
});
