/**
 * The throwaway Patroni cluster of tools/harness behaves like the real thing the PostgreSQL HA work will lean on:
 * roles (primary, sync standby, async standby, unreachable), standbys refusing writes, a multi-host URL reaching
 * the primary, a commit waiting for the sync standby (and what cancelling that wait does), a switchover, the
 * primary's machine dying (the sync standby promoted with every committed row), a replica killed and both
 * restarted, the asynchronous hazard (a lagging replica promoted without acknowledged rows), and a stop that leaves
 * no process behind. One cluster for the file: it starts synchronous and is switched to asynchronous for the
 * hazard, to stay well inside npm test's budget on 2 cores.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeRoleReport, PatroniCluster, PsqlError, psql, psqlRun } from '../../tools/harness';
import { defined } from '../support/defined';

let cluster: PatroniCluster;
/** Nodes killed along the way, restarted together. */
const killed: number[] = [];
const rows = 100;

/** The first column of the first row of a psql answer. */
function firstCell(answer: string[][], what: string): string {
  return defined(answer[0]?.[0], what);
}

async function count(i: number): Promise<number> {
  return Number(firstCell(await cluster.query(i, 'SELECT count(*) FROM t'), `the row count on node ${i}`));
}

/** Standbys replay asynchronously even in synchronous mode (commit waits for flush, not replay): poll a little. */
async function eventuallyCount(i: number, expected: number, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await count(i).catch(() => -1);
    if (n === expected || Date.now() > deadline) return n;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A process's start time (clock ticks since boot), so a PID reused by another process is not mistaken for ours. */
function startTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

function byRole(reports: NodeRoleReport[], role: NodeRoleReport['role']): NodeRoleReport[] {
  return reports.filter((r) => r.role === role);
}

beforeAll(async () => {
  cluster = await PatroniCluster.create({ nodes: 3, synchronous: true });
  const primary = await cluster.waitForLeader();
  await cluster.query(primary, [
    'CREATE TABLE t (id int PRIMARY KEY)',
    `INSERT INTO t SELECT generate_series(1, ${rows})`,
  ]);
}, 400_000); // on a fresh machine, apt-get installs postgresql-15, patroni and etcd-server first

afterAll(async () => {
  await cluster?.destroy();
});

describe('Patroni cluster harness (synchronous_mode)', () => {
  it('reports one primary, one sync standby and one async standby, both streaming', async () => {
    await cluster.waitForReplicasStreaming();
    const roles = await cluster.roles();
    expect(byRole(roles, 'primary')).toHaveLength(1);
    expect(byRole(roles, 'sync standby')).toHaveLength(1);
    expect(byRole(roles, 'async standby')).toHaveLength(1);
    expect(roles.filter((r) => r.role !== 'primary').every((r) => r.streaming)).toBe(true);
    expect(await cluster.primary()).toBe(byRole(roles, 'primary')[0]?.index);
  });

  it('a standby refuses writes; the multi-host URL with target_session_attrs=read-write reaches the primary in any order', async () => {
    const primary = (await cluster.primary()) as number;
    const standby = [0, 1, 2].find((i) => i !== primary) as number;
    expect(await eventuallyCount(standby, rows)).toBe(rows);
    const refused = await cluster.query(standby, 'INSERT INTO t VALUES (-1)').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PsqlError);
    expect((refused as PsqlError).stderr).toMatch(/read-only transaction/);
    expect(cluster.url()).toMatch(
      /^postgres:\/\/leaf:[0-9a-f]+@127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+\/leaf_test$/,
    );
    for (const order of [
      [standby, primary, 3 - standby - primary],
      [primary, standby, 3 - standby - primary],
    ]) {
      const address = firstCell(
        await psql(`${cluster.url(order)}?target_session_attrs=read-write`, 'SELECT inet_server_port()'),
        'the server port',
      );
      expect(Number(address)).toBe(cluster.node(primary).ports.pg);
    }
  });

  it('a commit waits for the sync standby; cancelling that wait leaves it committed on the primary alone, with a WARNING', async () => {
    const primary = (await cluster.primary()) as number;
    const sync = defined(byRole(await cluster.roles(), 'sync standby')[0], 'a sync standby').index;
    await cluster.query(primary, 'CREATE TABLE w (id int PRIMARY KEY)');
    await cluster.node(sync).freezeWalReceiver();
    try {
      const insert = psqlRun(cluster.urlFor(primary), 'INSERT INTO w VALUES (1)', { timeoutMs: 20_000 });
      const waiting = async () =>
        (
          await cluster.node(primary).superQuery("SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
        )[0]?.[0];
      let pid: string | undefined;
      for (let i = 0; i < 50 && pid === undefined; i++) pid = await waiting();
      expect(pid).toBeDefined();
      expect((await cluster.query(primary, 'SELECT count(*) FROM w'))[0]?.[0]).toBe('0'); // not visible while it waits
      await cluster.node(primary).superQuery(`SELECT pg_cancel_backend(${Number(pid)})`);
      const { stderr } = await insert; // success, not an error: the client is told only by the WARNING
      expect(stderr).toMatch(/canceling wait for synchronous replication/);
      expect((await cluster.query(primary, 'SELECT count(*) FROM w'))[0]?.[0]).toBe('1');
    } finally {
      cluster.node(sync).thawWalReceiver();
    }
    await cluster.waitForReplicasStreaming();
  });

  it('switchover: a standby becomes primary, the old one follows it, no row lost', async () => {
    const { from, to, ms } = await cluster.switchover();
    console.log(`switchover: ${cluster.node(from).name} → ${cluster.node(to).name} in ${ms} ms`);
    expect(to).not.toBe(from);
    await cluster.query(to, 'INSERT INTO t VALUES (1001)');
    await cluster.waitForReplicasStreaming();
    expect(['sync standby', 'async standby']).toContain((await cluster.roles())[from]?.role);
    expect(await eventuallyCount(from, rows + 1)).toBe(rows + 1);
  });

  it('the primary machine dies: the sync standby is promoted within the bound, with every committed row', async () => {
    const before = await cluster.roles();
    const sync = defined(byRole(before, 'sync standby')[0], 'a sync standby').index;
    const started = Date.now();
    const old = await cluster.killPrimary();
    killed.push(old);
    expect(cluster.node(old).pids()).toEqual([]);
    const now = await cluster.waitForLeader({ not: old });
    const failoverMs = Date.now() - started;
    console.log(
      `failover: ${cluster.node(old).name} killed → ${cluster.node(now).name} writable after ${failoverMs} ms`,
    );
    expect(now).toBe(sync);
    expect(failoverMs).toBeLessThan(cluster.failoverTimeoutMs);
    expect((await cluster.roles())[old]?.role).toBe('unreachable');
    expect(await count(now)).toBe(rows + 1);
    await cluster.query(now, 'INSERT INTO t VALUES (1002)');
  });

  it('a replica is killed too (unreachable, writes go on); both killed nodes restart and stream again', async () => {
    const primary = await cluster.waitForLeader();
    const replica = [0, 1, 2].find((i) => i !== primary && !killed.includes(i)) as number;
    await cluster.killNode(replica);
    killed.push(replica);
    expect((await cluster.roles())[replica]?.role).toBe('unreachable');
    await cluster.query(primary, 'INSERT INTO t VALUES (1003)'); // not strict: alone, the primary goes on
    // Together: the killed old primary needs pg_rewind (its timeline diverged), the replica only recovery.
    await Promise.all(killed.map((i) => cluster.restartNode(i)));
    await cluster.waitForReplicasStreaming();
    const roles = await cluster.roles();
    expect(byRole(roles, 'unreachable')).toHaveLength(0);
    expect(byRole(roles, 'sync standby')).toHaveLength(1);
    expect(byRole(roles, 'async standby')).toHaveLength(1);
    for (const i of killed) expect(await eventuallyCount(i, rows + 3)).toBe(rows + 3);
  });
});

describe('Patroni cluster harness (asynchronous)', () => {
  it('the hazard: a lagging replica is promoted without rows the old primary acknowledged', async () => {
    await cluster.setSynchronous(false);
    expect(byRole(await cluster.roles(), 'sync standby')).toHaveLength(0);
    const primary = (await cluster.primary()) as number;
    for (const i of [0, 1, 2]) expect(await eventuallyCount(i, rows + 3)).toBe(rows + 3);

    const { from, to, result } = await cluster.promoteLaggingReplica(async (p) => {
      await cluster.query(p, 'INSERT INTO t SELECT generate_series(2001, 2010)');
      return count(p);
    });
    expect(from).toBe(primary);
    expect(result).toBe(rows + 13); // acknowledged by the old primary
    expect(await count(to)).toBe(rows + 3); // the new primary never had the last 10
    expect((await cluster.query(to, 'SELECT count(*) FROM t WHERE id > 2000'))[0]?.[0]).toBe('0');
  });
});

describe('Patroni cluster harness (stop)', () => {
  it('stopAll leaves no process of the cluster behind (checked PID by PID)', async () => {
    const before = cluster.pids().map((pid) => ({ pid, started: startTime(pid) }));
    expect(before.length).toBeGreaterThan(5); // etcd, and per node a reaper, Patroni, a postmaster and its children
    await cluster.stopAll();
    expect(cluster.pids()).toEqual([]);
    expect(before.filter((p) => p.started !== undefined && startTime(p.pid) === p.started)).toEqual([]);
    const dir = cluster.dir;
    await cluster.destroy();
    expect(fs.existsSync(dir)).toBe(false);
  });
});
