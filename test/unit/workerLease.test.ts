import { afterEach, describe, expect, it } from 'vitest';
import { decompose } from '@/lib/snowflake/layout';
import { SnowflakeNode } from '@/lib/snowflake/node';
import { FakeClock, FakeWorkerStore, flush } from './fakes';

/**
 * Worker leasing rules on an in-memory store whose database clock is the fake clock: every lease, fence and
 * renewal timing is driven by advancing the clock, nothing sleeps. The same rules on real SQLite and MariaDB:
 * test/integration/workerLease-sqlite.test.ts and snowflake.test.ts.
 */
const EPOCH = Date.UTC(2026, 0, 1);
const LEASE_MS = 300;
const nodes: SnowflakeNode[] = [];

afterEach(async () => {
  for (const n of nodes.splice(0)) await n.stop().catch(() => undefined);
});

function setup() {
  const clock = new FakeClock(EPOCH + 1_000_000);
  const store = new FakeWorkerStore(clock);
  return { clock, store };
}

async function startNode(clock: FakeClock, store: FakeWorkerStore, nodeId: string, leaseMs = LEASE_MS): Promise<SnowflakeNode> {
  const node = new SnowflakeNode({ store, nodeId, epochMs: EPOCH, leaseMs, clock });
  nodes.push(node);
  await node.start();
  return node;
}

/** Moves the clock in small steps, letting each renewal (an async store call) finish, as real time would. */
async function elapse(clock: FakeClock, ms: number, stepMs = 10): Promise<void> {
  for (let left = ms; left > 0; left -= stepMs) {
    clock.advance(Math.min(stepMs, left));
    await flush();
  }
}

async function idNow(node: SnowflakeNode): Promise<bigint> {
  return await node.nextId();
}

describe('worker id leases (fake clock)', () => {
  it('nodes sharing a database get different worker ids', async () => {
    const { clock, store } = setup();
    const a = await startNode(clock, store, 'host-a:3000');
    const b = await startNode(clock, store, 'host-b:3000');
    const c = await startNode(clock, store, 'host-c:3000');
    expect(new Set([a.workerId, b.workerId, c.workerId]).size).toBe(3);
    expect(decompose(await idNow(b), EPOCH).workerId).toBe(b.workerId);
  });

  it('renews every third of the lease, raising the fence ahead of the clock', async () => {
    const { clock, store } = setup();
    const node = await startNode(clock, store, 'host-a:3000');
    const row = () => store.rows.get(node.workerId!)!;
    expect(row().lastTimestamp).toBe(clock.now() + LEASE_MS);
    await elapse(clock, 100);
    expect(row().lastTimestamp).toBe(clock.now() + LEASE_MS);
    expect(row().leaseExpiresAt).toBe(clock.now() + LEASE_MS);
  });

  it('a node restarted after a graceful stop keeps its id and serves at once', async () => {
    const { clock, store } = setup();
    const first = await startNode(clock, store, 'host-a:3000');
    const id = first.workerId;
    const last = await idNow(first);
    await first.stop();
    clock.advance(1); // the restart comes a moment later; its first ID is above the released fence
    const again = await startNode(clock, store, 'host-a:3000');
    expect(again.workerId).toBe(id);
    expect(again.status().state).toBe('ready');
    expect((await idNow(again)) > last).toBe(true);
  });

  it('a node restarted after a crash keeps its id and refuses until the clock passes the fence', async () => {
    const { clock, store } = setup();
    const crashed = await startNode(clock, store, 'host-a:3000', 400);
    const before = await idNow(crashed);
    nodes.pop(); // kill -9: no stop, no release; the lease row keeps its reservation
    const fence = store.rows.get(crashed.workerId!)!.lastTimestamp;
    expect(fence).toBe(clock.now() + 400);

    const restarted = await startNode(clock, store, 'host-a:3000', 400);
    expect(restarted.workerId).toBe(crashed.workerId);
    expect(restarted.status()).toMatchObject({ state: 'fencing', fenceUntil: new Date(fence).toISOString() });
    expect(() => restarted.nextId()).toThrow(expect.objectContaining({ code: 'snowflake_unavailable', status: 503, message: expect.stringMatching(/resume in 400 ms/) }));
    await elapse(clock, 390);
    expect(() => restarted.nextId()).toThrow(expect.objectContaining({ code: 'snowflake_unavailable' }));
    await elapse(clock, 11);
    const next = await idNow(restarted);
    expect(restarted.status().state).toBe('ready');
    expect(decompose(next, EPOCH).timestampMs).toBeGreaterThan(fence);
    expect(next > before).toBe(true);
  });

  it('an expired lease of another node is taken over (the longest-expired first), above its fence', async () => {
    const { clock, store } = setup();
    const fence = clock.now() + 200;
    for (let id = 0; id < 1024; id++) {
      await store.claimFreeWorker(id, `dead-${id}:1`, `i-${id}`, id === 5 ? -5_000 : -1_000);
      await store.renewWorker(id, `i-${id}`, id === 5 ? -5_000 : -1_000, fence);
    }
    const node = await startNode(clock, store, 'host-new:3000');
    expect(node.workerId).toBe(5);
    expect(store.rows.get(5)!.nodeId).toBe('host-new:3000');
    expect(node.status().state).toBe('fencing');
    await elapse(clock, 201);
    // Past the fence it says ready at once, before any ID was asked for (what its heartbeat publishes).
    expect(node.status()).toMatchObject({ state: 'ready' });
    expect(decompose(await idNow(node), EPOCH).timestampMs).toBeGreaterThan(fence);
  });

  it('never takes a live lease: with every id held by live nodes, snowflake is unavailable', async () => {
    const { clock, store } = setup();
    for (let id = 0; id < 1024; id++) await store.claimFreeWorker(id, `live-${id}:1`, `i-${id}`, 60_000);
    const node = await startNode(clock, store, 'host-x:3000');
    expect(node.workerId).toBeNull();
    expect(() => node.nextId()).toThrow(expect.objectContaining({ code: 'snowflake_unavailable', status: 503 }));
  });

  it('a node that cannot renew stops issuing before its lease runs out', async () => {
    const { clock, store } = setup();
    const node = await startNode(clock, store, 'host-a:3000');
    const leaseEnd = store.rows.get(node.workerId!)!.leaseExpiresAt;
    await idNow(node);
    store.failWith = new Error('process is gone');
    await elapse(clock, LEASE_MS - 1);
    expect(clock.now()).toBeLessThan(leaseEnd);
    // Renewals have failed; the last reservation is what it may issue under, and it runs out with the lease.
    expect(node.status().state).toBe('ready');
    await elapse(clock, 2);
    expect(() => node.nextId()).toThrow(expect.objectContaining({ code: 'snowflake_unavailable' }));
    expect(node.status()).toMatchObject({ state: 'unrenewed', lastError: 'process is gone' });
    // A renewal that succeeds again (the database is back) resumes it.
    store.failWith = null;
    await elapse(clock, Math.ceil(LEASE_MS / 3));
    expect(node.status().state).toBe('ready');
  });

  it('a node whose id was taken over stops using it and leases another', async () => {
    const { clock, store } = setup();
    const node = await startNode(clock, store, 'host-a:3000', 150);
    const stolen = node.workerId!;
    Object.assign(store.rows.get(stolen)!, { nodeId: 'host-b:3000', instanceId: 'someone-else' });
    await elapse(clock, 50); // the renewal finds the lease gone
    expect(node.workerId).not.toBe(stolen);
    await elapse(clock, 1_000); // retries within a second
    expect(node.workerId).not.toBeNull();
    expect(decompose(await idNow(node), EPOCH).workerId).not.toBe(stolen);
  });
});
