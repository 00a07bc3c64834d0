import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isLeafError } from '@/lib/errors';
import { decompose } from '@/lib/snowflake/layout';
import { SnowflakeNode } from '@/lib/snowflake/node';
import { SqliteStore } from '@/lib/store/sqlite';
import type { WorkerStore } from '@/lib/snowflake/workerStore';
import { waitFor } from '../support/context';

/**
 * Worker leasing on a real SQLite file: the claim statements and the database clock. The DB clock is real, so
 * nothing here sleeps a fixed time: every wait polls its condition with a generous bound, for a busy machine.
 * The timing rules themselves are unit-tested with a fake clock (test/unit/workerLease.test.ts).
 */
const EPOCH = Date.UTC(2026, 0, 1);
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempStore(file?: string): { store: SqliteStore; file: string } {
  const dir = file ? path.dirname(file) : fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-lease-'));
  const f = file ?? path.join(dir, 'leaf.db');
  const store = new SqliteStore({ file: f });
  cleanups.push(() => store.close());
  if (!file) cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { store, file: f };
}

/** A store that can be cut off, as a crashed process or a partition would be. */
function killable(store: WorkerStore): { store: WorkerStore; kill(): void } {
  let dead = false;
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (dead) return Promise.reject(new Error('process is gone'));
        return v.apply(target, args);
      };
    },
  });
  return { store: proxy, kill: () => (dead = true) };
}

async function startNode(store: WorkerStore, nodeId: string, leaseMs = 2_000): Promise<SnowflakeNode> {
  const node = new SnowflakeNode({ store, nodeId, epochMs: EPOCH, leaseMs });
  cleanups.push(() => node.stop());
  await node.start();
  return node;
}

async function idNow(node: SnowflakeNode): Promise<bigint> {
  return await node.nextId();
}

/** Bound of every wait: far above the leases and fences here, so only a real fault reaches it. */
const WAIT_MS = 15_000;

/** The node's first ID once it serves again (it refuses while fencing). */
function servedId(node: SnowflakeNode, what: string): Promise<bigint> {
  return waitFor(
    WAIT_MS,
    () => {
      try {
        return node.nextId();
      } catch (error) {
        if (isLeafError(error) && error.code === 'snowflake_unavailable') return undefined;
        throw error;
      }
    },
    what,
  );
}

describe('worker id leases (SQLite)', () => {
  it('nodes sharing a database get different worker ids', async () => {
    const { store, file } = tempStore();
    const second = tempStore(file).store; // another connection, as another process would have
    const a = await startNode(store.workers, 'host-a:3000');
    const b = await startNode(second.workers, 'host-b:3000');
    const c = await startNode(store.workers, 'host-c:3000');
    expect(new Set([a.workerId, b.workerId, c.workerId]).size).toBe(3);
    expect(decompose(await idNow(b), EPOCH).workerId).toBe(b.workerId);
  });

  it('a node restarted after a graceful stop keeps its id and serves at once', async () => {
    const { store } = tempStore();
    const first = await startNode(store.workers, 'host-a:3000');
    const id = first.workerId;
    const last = await idNow(first);
    await first.stop();
    const again = await startNode(store.workers, 'host-a:3000');
    expect(again.workerId).toBe(id);
    const next = await idNow(again);
    expect(next > last).toBe(true);
  });

  it('a node restarted after a crash keeps its id and issues above everything the crashed one could have', async () => {
    const { store } = tempStore();
    const cut = killable(store.workers);
    const crashed = await startNode(cut.store, 'host-a:3000', 1_000);
    const ids = [await idNow(crashed)];
    cut.kill(); // kill -9: no release, the lease row keeps its reservation
    const fence = (await store.workers.listWorkers()).find((w) => w.workerId === crashed.workerId)!.lastTimestamp;
    expect(fence).toBeGreaterThan(Date.now()); // the reservation runs ahead of the clock

    const restarted = await startNode(store.workers, 'host-a:3000', 1_000);
    expect(restarted.workerId).toBe(crashed.workerId);
    // Until the clock passes the fence, it refuses rather than risk an ID the crashed process may have issued.
    expect(restarted.status()).toMatchObject({ state: 'fencing', fenceUntil: new Date(fence).toISOString() });
    expect(() => restarted.nextId()).toThrow(
      expect.objectContaining({
        code: 'snowflake_unavailable',
        status: 503,
        message: expect.stringMatching(/resume in \d+ ms/),
      }),
    );
    const next = await servedId(restarted, 'the restarted node serving past the fence');
    expect(restarted.status().state).toBe('ready');
    expect(decompose(next, EPOCH).timestampMs).toBeGreaterThan(fence);
    expect(next > ids[0]!).toBe(true);
  });

  it('an expired lease of another node is taken over, above its fence', async () => {
    const { store } = tempStore();
    // Every id held by dead nodes: all leases expired, fences slightly in the future.
    const fence = Date.now() + 500;
    for (let id = 0; id < 1024; id++) {
      await store.workers.claimFreeWorker(id, `dead-${id}:1`, `i-${id}`, -1_000);
      await store.workers.renewWorker(id, `i-${id}`, id === 5 ? -5_000 : -1_000, fence);
    }
    const node = await startNode(store.workers, 'host-new:3000');
    expect(node.workerId).toBe(5); // the longest-expired first
    const row = (await store.workers.listWorkers()).find((w) => w.workerId === 5)!;
    expect(row.nodeId).toBe('host-new:3000');
    expect(decompose(await servedId(node, 'the new holder serving past the fence'), EPOCH).timestampMs).toBeGreaterThan(
      fence,
    );
  });

  it('never takes a live lease: with every id held by live nodes, snowflake is unavailable', async () => {
    const { store } = tempStore();
    for (let id = 0; id < 1024; id++) await store.workers.claimFreeWorker(id, `live-${id}:1`, `i-${id}`, 60_000);
    const node = await startNode(store.workers, 'host-x:3000');
    expect(node.workerId).toBeNull();
    expect(() => node.nextId()).toThrow(expect.objectContaining({ code: 'snowflake_unavailable', status: 503 }));
  });

  it('a node that cannot renew stops issuing before its lease runs out', async () => {
    const { store } = tempStore();
    const cut = killable(store.workers);
    const leaseMs = 1_000;
    const node = await startNode(cut.store, 'host-a:3000', leaseMs);
    await idNow(node);
    cut.kill();
    const killedAt = Date.now();
    const stamps: number[] = [];
    const refusal = await waitFor(
      WAIT_MS,
      () => {
        try {
          stamps.push(decompose(node.nextId() as bigint, EPOCH).timestampMs);
          return undefined;
        } catch (error) {
          return error;
        }
      },
      'the cut-off node refusing',
    );
    expect(refusal).toMatchObject({ code: 'snowflake_unavailable' });
    // No ID past the lease it last renewed (before the cut): judged by the IDs' own timestamps, so a loaded machine
    // that runs the poll late cannot fail it.
    expect(stamps.filter((at) => at >= killedAt + leaseMs)).toEqual([]);
  });

  it('a node whose id was taken over stops using it and leases another', async () => {
    const { store, file } = tempStore();
    const node = await startNode(store.workers, 'host-a:3000', 600);
    const stolen = node.workerId!;
    // Another node took the id (as after a partition past expiry).
    const raw = new Database(file);
    raw
      .prepare("UPDATE leaf_worker SET node_id = 'host-b:3000', instance_id = 'someone-else' WHERE worker_id = ?")
      .run(stolen);
    raw.close();
    // A renewal finds the lease gone; the node leases another id.
    await waitFor(
      WAIT_MS,
      () => (node.workerId !== null && node.workerId !== stolen ? true : undefined),
      'a new worker id',
    );
    expect(decompose(await idNow(node), EPOCH).workerId).not.toBe(stolen);
  });
});
