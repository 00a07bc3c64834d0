/**
 * The throwaway Galera cluster of tools/harness behaves like the real thing the chaos suite will lean on:
 * replication, certification conflicts (1213), kill + IST rejoin, SIGSTOP eviction, a non-primary minority
 * refusing writes (1047), and a whole-cluster restart from the most advanced node. One cluster for the file.
 */
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GaleraCluster, type TestDatabase } from '../../tools/harness';
import { defined } from '../support/defined';

let cluster: GaleraCluster;
let db: TestDatabase;

/** A connection to node i, in the test database; causal reads, so a read sees every write committed before it. */
async function connect(i: number, causal = true): Promise<mysql.Connection> {
  const conn = await mysql.createConnection({ uri: cluster.urlFor(i, db.name), connectTimeout: 5_000 });
  if (causal) await conn.query('SET SESSION wsrep_sync_wait = 1');
  return conn;
}

async function onNode<T>(i: number, fn: (conn: mysql.Connection) => Promise<T>, causal = true): Promise<T> {
  const conn = await connect(i, causal);
  try {
    return await fn(conn);
  } finally {
    conn.destroy();
  }
}

async function valueOf(i: number, id: number): Promise<number | undefined> {
  return onNode(i, async (c) => {
    const [rows] = await c.query<mysql.RowDataPacket[]>('SELECT v FROM t WHERE id = ?', [id]);
    return rows[0] === undefined ? undefined : Number(rows[0].v);
  });
}

async function rowCount(i: number): Promise<number> {
  return onNode(i, async (c) => {
    const [rows] = await c.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM t');
    return Number(defined(rows[0], `a row count on node ${i}`).n);
  });
}

function insert(i: number, id: number, v: number): Promise<unknown> {
  return onNode(i, (c) => c.query('INSERT INTO t (id, v) VALUES (?, ?)', [id, v]), false);
}

function errnoOf(error: unknown): number | undefined {
  return (error as { errno?: number }).errno;
}

beforeAll(async () => {
  cluster = await GaleraCluster.create({ nodes: 3 });
  db = await cluster.createDatabase('leaf_galera');
  await onNode(0, async (c) => {
    await c.query('CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB');
    await c.query('INSERT INTO t (id, v) VALUES (1, 0)');
  });
});

afterAll(async () => {
  await cluster?.destroy();
});

describe('Galera cluster harness', () => {
  it('replicates a row written on node 1 to nodes 2 and 3', async () => {
    await insert(0, 100, 7);
    expect(await valueOf(1, 100)).toBe(7);
    expect(await valueOf(2, 100)).toBe(7);
  });

  it('concurrent increments on two nodes: each succeeds or gets 1213, and the total counts only the successes', async () => {
    const before = (await valueOf(0, 1)) ?? 0;
    const attempts = 40;
    const hammer = (i: number) =>
      onNode(
        i,
        async (c) => {
          let ok = 0;
          for (let k = 0; k < attempts; k++) {
            try {
              await c.query('UPDATE t SET v = v + 1 WHERE id = 1');
              ok++;
            } catch (error) {
              // A lost certification is answered with a deadlock error even in autocommit; nothing else is expected.
              expect(errnoOf(error), String(error)).toBe(1213);
            }
          }
          return ok;
        },
        false,
      );
    const [a, b] = await Promise.all([hammer(0), hammer(1)]);
    expect(a + b).toBeGreaterThan(0);
    expect(await valueOf(2, 1)).toBe(before + a + b);
  });

  it('a killed node restarts from its recovered position and sees the writes made while it was down', async () => {
    await cluster.kill(2);
    expect(cluster.nodes[2]?.isRunning).toBe(false);
    expect((await cluster.status(0))?.clusterSize).toBe(2);
    for (let id = 200; id < 210; id++) await insert(id % 2, id, id);
    await cluster.restart(2);
    expect(await cluster.status(2)).toMatchObject({
      state: 'Synced',
      clusterSize: 3,
      clusterStatus: 'Primary',
      ready: true,
    });
    expect(await valueOf(2, 209)).toBe(209);
    // It caught up by incremental state transfer from the donor's gcache, not a full copy.
    expect(cluster.nodes[2]?.stateTransfer()).toBe('IST');
  });

  it('a paused node is evicted, and rejoins Synced after resume', async () => {
    await cluster.pause(1);
    expect((await cluster.status(0))?.clusterSize).toBe(2);
    await insert(0, 300, 300);
    await cluster.resume(1);
    expect((await cluster.status(1))?.state).toBe('Synced');
    expect(await valueOf(1, 300)).toBe(300);
  });

  it('an isolated node is a non-primary minority refusing writes with 1047 while the others accept them; heal brings it back', async () => {
    await cluster.isolate(2);
    const alone = await cluster.status(2);
    expect(alone?.clusterStatus).toBe('non-Primary');
    expect(alone?.ready).toBe(false);
    await expect(insert(2, 400, 400)).rejects.toMatchObject({ errno: 1047 });
    await insert(0, 401, 401);
    await insert(1, 402, 402);
    await cluster.heal(2);
    expect(await cluster.status(2)).toMatchObject({ state: 'Synced', clusterSize: 3, clusterStatus: 'Primary' });
    expect(await valueOf(2, 402)).toBe(402);
    expect(await valueOf(2, 400)).toBeUndefined();
  });

  it('a full-cluster kill and bootstrap from the most advanced node keeps every committed row', async () => {
    // Node 3 goes down first and misses a write, so it is behind when the rest is killed.
    await cluster.kill(2);
    await insert(0, 450, 450);
    const before = await rowCount(0);
    const total = await valueOf(0, 1);
    await cluster.stopAll();
    expect(await cluster.bootstrapFromMostAdvanced()).not.toBe(2);
    for (const i of [0, 1, 2]) {
      expect(await cluster.status(i)).toMatchObject({ state: 'Synced', clusterSize: 3, clusterStatus: 'Primary' });
      expect(await rowCount(i)).toBe(before);
    }
    expect(await valueOf(2, 1)).toBe(total);
    await insert(1, 500, 500);
    expect(await valueOf(0, 500)).toBe(500);
  });
});
