/**
 * A throwaway Patroni cluster (default 3 nodes, Debian's patroni 3.0 + PostgreSQL 15) with one etcd (v3 API) on
 * 127.0.0.1, for tests, the chaos suite and the bench.
 *
 * `PatroniCluster.create()` starts etcd, then every node at once: Patroni elects one to run initdb, the others
 * clone it with pg_basebackup and stream. Then an app user and database are created, so `url()` —
 * postgres://leaf:…@127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3/leaf_test — works. TTLs are shortened
 * (patroniConfig.ts) so a failover takes seconds.
 *
 * Faults: killPrimary / killNode (SIGKILL of Patroni, postgres and every backend: the machine dies), restartNode
 * (Patroni rejoins it, pg_rewind if it diverged), switchover (Patroni's REST API), and promoteLaggingReplica
 * (asynchronous mode: a replica missing acknowledged writes becomes primary — the hazard synchronous_mode exists
 * to prevent). Every process carries the cluster's marker (markedProcesses.ts): an exit hook and a detached
 * watchdog SIGKILL them by PID should we die, and `pids()` shows what is left.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Log } from './apt';
import { type EtcdServer, startEtcd } from './etcd';
import { onExit } from './exitHooks';
import { killMarked, killPids, markedPids, spawnMarkedWatchdog } from './markedProcesses';
import { type ClusterSettings, type Credentials, nodePaths } from './patroniConfig';
import { type OsUser, PatroniNode } from './patroniNode';
import { type NodeRoleReport, describeRoles, nodeRoles } from './patroniRoles';
import {
  type PatroniClusterOptions,
  clusterSettings,
  distinctFreePorts,
  ensurePatroniPackages,
  secret,
} from './patroniSetup';
import { waitForLeader, waitForReplicasStreaming, waitNoSyncStandby, waitNodeJoined } from './patroniWaits';
import { psql } from './psql';

export { type ClusterView, type NodePorts, PatroniNode, type PatroniStatus } from './patroniNode';
export { type NodeRole, type NodeRoleReport, describeRoles } from './patroniRoles';
export { type PatroniTimings } from './patroniConfig';
export { type PatroniClusterOptions } from './patroniSetup';

const defaultLog: Log = (line) => process.stderr.write(`[patroni] ${line}\n`);
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export class PatroniCluster {
  readonly nodes: PatroniNode[] = [];
  readonly database = 'leaf_test';
  readonly app: Credentials = { user: 'leaf', password: secret() };
  /** Patroni's synchronous_mode now (setSynchronous changes it). */
  synchronous: boolean;
  private etcd: EtcdServer | undefined;
  private unregisterExitHook: () => void = () => undefined;

  private constructor(
    readonly dir: string,
    private readonly etcdDir: string,
    readonly marker: string,
    readonly settings: Omit<ClusterSettings, 'etcdHost'>,
    private readonly log: Log,
    readonly startTimeoutMs: number,
    readonly failoverTimeoutMs: number,
  ) {
    this.synchronous = settings.synchronous;
  }

  static async create(options: PatroniClusterOptions = {}): Promise<PatroniCluster> {
    const log = options.log ?? defaultLog;
    const owner = ensurePatroniPackages(log);
    const started = Date.now();
    const shm = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
    const dir = fs.mkdtempSync(path.join(options.baseDir ?? shm, 'leaf-patroni-'));
    fs.chmodSync(dir, 0o711); // the postgres user must reach its node dirs inside
    const etcdDir = fs.mkdtempSync(path.join(shm, 'leaf-patroni-etcd-'));
    const marker = `patroni-${randomBytes(6).toString('hex')}`;
    const settings = clusterSettings(options, marker);
    const failoverTimeoutMs = options.failoverTimeoutMs ?? Math.max(30_000, settings.timings.ttl * 3_000);
    const cluster = new PatroniCluster(
      dir,
      etcdDir,
      marker,
      settings,
      log,
      options.startTimeoutMs ?? 120_000,
      failoverTimeoutMs,
    );
    cluster.unregisterExitHook = onExit(() => {
      killPids(markedPids(marker, { prefix: true }));
      fs.rmSync(etcdDir, { recursive: true, force: true });
    });
    spawnMarkedWatchdog(marker, [dir, etcdDir]);
    try {
      await cluster.start(options.nodes ?? 3, owner);
      log(
        `${cluster.synchronous ? 'synchronous' : 'asynchronous'} cluster of ${cluster.nodes.length} up in ${seconds(Date.now() - started)}: ${describeRoles(await cluster.roles())}`,
      );
      return cluster;
    } catch (error) {
      await cluster.destroy();
      throw error;
    }
  }

  private async start(count: number, owner: OsUser): Promise<void> {
    this.etcd = await startEtcd({
      dataDir: this.etcdDir,
      logDir: this.dir,
      marker: `${this.marker}/etcd`,
      log: this.log,
    });
    const settings: ClusterSettings = { ...this.settings, etcdHost: this.etcd.host };
    const ports = await distinctFreePorts(count * 2);
    for (let i = 0; i < count; i++) {
      const name = `pg${i + 1}`;
      const pg = ports[2 * i];
      const api = ports[2 * i + 1];
      if (pg === undefined || api === undefined)
        throw new Error(`${ports.length} free ports for ${count} nodes of 2 each`);
      const node = new PatroniNode(
        i,
        name,
        nodePaths(path.join(this.dir, name)),
        { pg, api },
        `${this.marker}/${name}`,
        settings,
        owner,
        this.log,
      );
      node.prepare();
      this.nodes.push(node);
    }
    // All at once: Patroni lets one win the initialize key and run initdb; the others wait, then clone it.
    for (const node of this.nodes) node.start();
    const leader = await this.waitForLeader({ timeoutMs: this.startTimeoutMs, what: 'bootstrapped' });
    await this.waitForReplicasStreaming(this.startTimeoutMs);
    await this.node(leader).superQuery([
      `CREATE ROLE ${this.app.user} LOGIN CREATEDB PASSWORD '${this.app.password}'`,
      `CREATE DATABASE ${this.database} OWNER ${this.app.user}`,
    ]);
  }

  node(i: number): PatroniNode {
    const node = this.nodes[i];
    if (node === undefined) throw new Error(`no node ${i} (nodes are 0…${this.nodes.length - 1})`);
    return node;
  }

  /** "127.0.0.1:port" of node i's postgres. */
  host(i: number): string {
    return `127.0.0.1:${this.node(i).ports.pg}`;
  }

  /** postgres://leaf:…@127.0.0.1:p1,127.0.0.1:p2,…/database with the hosts in `order` (node indexes). */
  url(order: number[] = this.nodes.map((_, i) => i), database = this.database): string {
    return `postgres://${encodeURIComponent(this.app.user)}:${encodeURIComponent(this.app.password)}@${order.map((i) => this.host(i)).join(',')}/${database}`;
  }

  /** The app user's URL for node i alone. */
  urlFor(i: number, database = this.database): string {
    return this.url([i], database);
  }

  /** Statements as the app user on node i (psql, bounded). */
  query(i: number, statements: string | string[], timeoutMs = 10_000): Promise<string[][]> {
    return psql(this.urlFor(i), statements, { timeoutMs, binDir: this.settings.binDir });
  }

  /** Every node's role: primary, sync standby, async standby or unreachable. */
  roles(): Promise<NodeRoleReport[]> {
    return nodeRoles(this.nodes);
  }

  /** The index of the node that is primary now (by the nodes' own REST APIs), or undefined. */
  async primary(): Promise<number | undefined> {
    const primaries = (await this.roles()).filter((r) => r.role === 'primary');
    return primaries.length === 1 ? primaries[0]?.index : undefined;
  }

  /**
   * Waits until exactly one node is a writable primary holding the leader key (not `not`, when given); returns its
   * index. Throws after the bound with every node's role and log tails.
   */
  waitForLeader(o: { not?: number; timeoutMs?: number; what?: string } = {}): Promise<number> {
    return waitForLeader(this.nodes, { timeoutMs: this.failoverTimeoutMs, log: this.log, ...o });
  }

  /** Waits until every running standby streams from the primary (and, in synchronous mode, one is the sync standby). */
  waitForReplicasStreaming(timeoutMs = this.failoverTimeoutMs): Promise<void> {
    return waitForReplicasStreaming(this.nodes, this.synchronous, timeoutMs, this.log);
  }

  /** SIGKILL of node i's Patroni, postgres and backends: that machine died. Resolves once they are all gone. */
  async killNode(i: number): Promise<void> {
    const node = this.node(i);
    await node.kill();
    this.log(`${node.name} killed (Patroni, postgres and its backends: SIGKILL)`);
  }

  /** Kills the current primary (as killNode); returns its index. Patroni promotes a standby after the lease lapses. */
  async killPrimary(): Promise<number> {
    const primary = await this.primary();
    if (primary === undefined) throw new Error(`no single primary to kill: ${describeRoles(await this.roles())}`);
    await this.killNode(primary);
    return primary;
  }

  /** Starts a killed or stopped node and waits until it is a streaming standby again (or the primary, if it won). */
  async restartNode(i: number): Promise<void> {
    const node = this.node(i);
    const started = Date.now();
    node.start();
    await waitNodeJoined(this.nodes, i, this.failoverTimeoutMs, this.log);
    this.log(`${node.name} rejoined in ${seconds(Date.now() - started)}`);
  }

  /**
   * A planned switchover through the primary's REST API (POST /switchover), to node `to` or to whichever standby
   * Patroni picks (in synchronous mode only the sync standby may be chosen), once every standby streams. Returns
   * the old and new primary's indexes and how long it took, from the request until the new one was writable.
   */
  async switchover(to?: number): Promise<{ from: number; to: number; ms: number }> {
    // Right after a failover the standbys are still turning to the new primary; in synchronous mode Patroni
    // refuses a switchover (412) until one of them is the sync standby again.
    await this.waitForReplicasStreaming();
    const from = await this.waitForLeader();
    const started = Date.now();
    const body = { leader: this.node(from).name, ...(to === undefined ? {} : { candidate: this.node(to).name }) };
    const answer = await this.node(from)
      .post('/switchover', body, this.failoverTimeoutMs)
      .catch((error: unknown) => ({ status: 0, text: String(error) }));
    if (answer.status !== 200)
      throw new Error(
        `switchover ${JSON.stringify(body)} refused: ${answer.status} ${answer.text.trim()} (${describeRoles(await this.roles())})`,
      );
    const now = await this.waitForLeader({ not: from, what: 'switched over' });
    if (to !== undefined && now !== to)
      throw new Error(`switchover to ${this.node(to).name} went to ${this.node(now).name}`);
    const ms = Date.now() - started;
    this.log(`switchover ${this.node(from).name} → ${this.node(now).name} in ${seconds(ms)} (${answer.text.trim()})`);
    return { from, to: now, ms };
  }

  /**
   * The hazard of asynchronous replication, made deterministic (asynchronous clusters only):
   * 1. waits until every standby streams, then freezes every standby's WAL receiver (SIGSTOP);
   * 2. runs `writes(primary)`: what it commits is acknowledged by the primary alone (no standby wrote it);
   * 3. kills the primary (killNode), then SIGKILLs the frozen receivers, so the WAL waiting in their sockets is
   *    never written (each standby's postgres restarts from its own disk, still a standby);
   * 4. waits for Patroni to promote one of them: its lag is far below maximum_lag_on_failover, so it is eligible.
   * The new primary lacks everything `writes` committed. Returns the old and new primary and what `writes` returned.
   */
  async promoteLaggingReplica<T>(
    writes: (primary: number) => Promise<T>,
  ): Promise<{ from: number; to: number; result: T }> {
    if (this.synchronous)
      throw new Error(
        'promoteLaggingReplica needs an asynchronous cluster: in synchronous mode the writes would wait for the frozen sync standby',
      );
    const from = await this.waitForLeader();
    await this.waitForReplicasStreaming();
    const standbys = this.nodes.filter((n, i) => i !== from && n.isRunning);
    for (const node of standbys) await node.freezeWalReceiver();
    let result: T;
    try {
      result = await writes(from);
    } catch (error) {
      for (const node of standbys) node.thawWalReceiver();
      throw error;
    }
    await this.killNode(from);
    for (const node of standbys) node.discardFrozenWal();
    const to = await this.waitForLeader({ not: from, what: 'promoted after the lagging failover' });
    return { from, to, result };
  }

  /**
   * Turns Patroni's synchronous_mode on or off in the running cluster (PATCH /config, the DCS-wide dynamic
   * configuration) and waits until the standbys show it: one sync standby when on, none when off.
   */
  async setSynchronous(on: boolean): Promise<void> {
    const primary = await this.waitForLeader();
    const started = Date.now();
    const answer = await this.node(primary).post('/config', { synchronous_mode: on }, 10_000, 'PATCH');
    if (answer.status !== 200)
      throw new Error(`PATCH /config synchronous_mode=${on} refused: ${answer.status} ${answer.text.trim()}`);
    this.synchronous = on;
    if (on) await this.waitForReplicasStreaming();
    else await waitNoSyncStandby(this.nodes, this.failoverTimeoutMs, this.log);
    this.log(
      `synchronous_mode ${on ? 'on' : 'off'} in ${seconds(Date.now() - started)}: ${describeRoles(await this.roles())}`,
    );
  }

  /** Live PIDs of everything this cluster started (etcd, reapers, Patroni, postgres, backends). */
  pids(): number[] {
    return markedPids(this.marker, { prefix: true });
  }

  /**
   * Stops every node gracefully (Patroni shuts postgres down) — the standbys, then the primary — then etcd; each
   * bounded, SIGKILL after. A Patroni told to stop in the middle of a demotion (right after a switchover) was seen
   * hanging until killed, so the cluster is first given up to 3 s to settle.
   */
  async stopAll(timeoutMs = 10_000): Promise<void> {
    const started = Date.now();
    await this.waitForReplicasStreaming(3_000).catch((error: unknown) =>
      this.log(`stopping a cluster that has not settled (${String(error).split('\n')[0]})`),
    );
    const primary = await this.primary();
    await Promise.all(this.nodes.filter((_, i) => i !== primary).map((n) => n.stop(timeoutMs)));
    if (primary !== undefined) await this.node(primary).stop(timeoutMs);
    await this.etcd?.stop();
    const stray = this.pids();
    if (stray.length > 0) this.log(`processes ${stray.join(', ')} outlived the graceful stop: SIGKILL`);
    const left = await killMarked(this.marker, 5_000, { prefix: true });
    if (left.length > 0) throw new Error(`processes ${left.join(', ')} of the Patroni cluster survived SIGKILL`);
    this.log(`every node and etcd stopped in ${seconds(Date.now() - started)}`);
  }

  /** Kills whatever is left (by PID) and removes the dirs. */
  async destroy(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill().catch(() => undefined)));
    await this.etcd?.stop();
    const left = await killMarked(this.marker, 5_000, { prefix: true });
    this.unregisterExitHook();
    fs.rmSync(this.dir, { recursive: true, force: true });
    fs.rmSync(this.etcdDir, { recursive: true, force: true });
    if (left.length > 0) throw new Error(`processes ${left.join(', ')} of the Patroni cluster survived SIGKILL`);
  }

  /** etcd's and every node's log tails, for a failure message. */
  tails(lines = 15): string {
    return [this.etcd?.tail(lines) ?? '', ...this.nodes.map((n) => n.tail(lines))].join('\n');
  }
}
