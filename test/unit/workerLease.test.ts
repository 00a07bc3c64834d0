import { afterEach, describe, expect, it } from 'vitest';
import { decompose } from '@/lib/snowflake/layout';
import { SnowflakeNode } from '@/lib/snowflake/node';
import { WorkerIdSet, parseWorkerIds } from '@/lib/snowflake/workerIds';
import { FakeClock, FakeWorkerStore, flush } from '../support/fakes';

/**
 * Worker leasing rules on an in-memory store whose database clock is the fake clock: every lease, fence and
 * renewal timing is driven by advancing the clock, nothing sleeps. The same rules on real SQLite and MariaDB:
 * test/integration/workerLeaseSqlite.test.ts and snowflake.test.ts.
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

async function startNode(
  clock: FakeClock,
  store: FakeWorkerStore,
  nodeId: string,
  leaseMs = LEASE_MS,
  workerIds?: WorkerIdSet,
): Promise<SnowflakeNode> {
  const node = new SnowflakeNode({ store, nodeId, epochMs: EPOCH, leaseMs, clock, workerIds });
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
    expect(() => restarted.nextId()).toThrow(
      expect.objectContaining({
        code: 'snowflake_unavailable',
        status: 503,
        message: expect.stringMatching(/resume in 400 ms/),
      }),
    );
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

function ids(text: string): WorkerIdSet {
  const set = parseWorkerIds(text, 1023);
  if (!(set instanceof WorkerIdSet)) throw new Error(set.problem);
  return set;
}

describe('reserved worker ids, LEAF_WORKER_IDS (fake clock)', () => {
  it('nodes starting at once lease only ids of their set, each a different one; one too many is refused, naming the set', async () => {
    const { clock, store } = setup();
    const set = ids('512-515');
    const racers = Array.from(
      { length: 5 },
      (_, i) =>
        new SnowflakeNode({
          store,
          nodeId: `host-${i}:3000`,
          epochMs: EPOCH,
          leaseMs: LEASE_MS,
          clock,
          workerIds: set,
        }),
    );
    nodes.push(...racers);
    await Promise.all(racers.map((n) => n.start())); // their claims interleave: all list the same free ids first
    const held = racers.map((n) => n.workerId).filter((id) => id !== null);
    expect(held.sort((a, b) => a - b)).toEqual([512, 513, 514, 515]);
    expect([...store.rows.keys()].sort((a, b) => a - b)).toEqual([512, 513, 514, 515]); // nothing outside was even claimed
    const refused = racers.find((n) => n.workerId === null)!;
    const message = 'All 4 worker ids of LEAF_WORKER_IDS=512-515 are leased by live nodes.';
    expect(() => refused.nextId()).toThrow(
      expect.objectContaining({ code: 'snowflake_unavailable', status: 503, message }),
    );
    expect(refused.status()).toMatchObject({
      state: 'starting',
      workerId: null,
      workerIds: '512-515',
      lastError: message,
    });
    for (const n of racers.filter((r) => r !== refused))
      expect(decompose(await idNow(n), EPOCH).workerId).toBe(n.workerId);
  });

  it('free ids of the set first, then its longest-expired lease; never a free or expired id outside it', async () => {
    const { clock, store } = setup();
    // Outside the set: id 0 expired longest of all, ids 1..1023 otherwise free. Inside {3,5,7}: 3 live, 5 expired.
    await store.claimFreeWorker(0, 'dead-0:1', 'i-0', -9_000);
    await store.claimFreeWorker(3, 'live-3:1', 'i-3', 60_000);
    await store.claimFreeWorker(5, 'dead-5:1', 'i-5', -1_000);
    const set = ids('3,5,7');
    const first = await startNode(clock, store, 'host-a:3000', LEASE_MS, set);
    expect(first.workerId).toBe(7); // the free one
    const second = await startNode(clock, store, 'host-b:3000', LEASE_MS, set);
    expect(second.workerId).toBe(5); // the expired one of the set, not id 0
    expect(store.rows.get(0)!.nodeId).toBe('dead-0:1');
    const third = await startNode(clock, store, 'host-c:3000', LEASE_MS, set);
    expect(third.workerId).toBeNull();
    expect(third.status().lastError).toBe('All 3 worker ids of LEAF_WORKER_IDS=3,5,7 are leased by live nodes.');
  });

  it('a refused node takes an id of its set once that lease expires, above its fence', async () => {
    const { clock, store } = setup();
    const set = ids('40-41');
    const a = await startNode(clock, store, 'host-a:3000', LEASE_MS, set);
    // 41's holder reserved timestamps ahead (a fast clock), then died (kill -9): no more renewals, no release.
    await store.claimFreeWorker(41, 'host-b:3000', 'i-b', LEASE_MS);
    const fence = clock.now() + LEASE_MS + 3_000;
    await store.renewWorker(41, 'i-b', LEASE_MS, fence);
    const waiting = await startNode(clock, store, 'host-c:3000', LEASE_MS, set);
    expect(waiting.workerId).toBeNull();
    await elapse(clock, LEASE_MS + 1_100); // the lease runs out; the waiting node retries at least once a second
    expect(waiting.workerId).toBe(41);
    expect(waiting.status().state).toBe('fencing');
    expect(a.workerId).toBe(40);
    await elapse(clock, fence - clock.now() + 1);
    const id = decompose(await idNow(waiting), EPOCH);
    expect(id.workerId).toBe(41);
    expect(id.timestampMs).toBeGreaterThan(fence);
    expect([...store.rows.keys()].sort()).toEqual([40, 41]);
  });

  it('a node whose id was taken re-leases within its set, with every id outside it free', async () => {
    const { clock, store } = setup();
    const set = ids('700,900');
    const node = await startNode(clock, store, 'host-a:3000', 150, set);
    expect(node.workerId).toBe(700);
    Object.assign(store.rows.get(700)!, {
      nodeId: 'host-b:3000',
      instanceId: 'someone-else',
      leaseExpiresAt: clock.now() + 60_000,
    });
    await elapse(clock, 50); // the renewal finds the lease gone
    await elapse(clock, 1_000);
    expect(node.workerId).toBe(900);
  });

  it('a restart with the same node id gets its old id back only when it is in the set', async () => {
    const { clock, store } = setup();
    const before = await startNode(clock, store, 'host-a:3000');
    expect(before.workerId).toBe(0);
    await before.stop();
    const narrowed = await startNode(clock, store, 'host-a:3000', LEASE_MS, ids('512-1023'));
    expect(narrowed.workerId).toBe(512);
    await narrowed.stop();
    const widened = await startNode(clock, store, 'host-a:3000', LEASE_MS, ids('0-9'));
    expect(widened.workerId).toBe(0);
  });
});
