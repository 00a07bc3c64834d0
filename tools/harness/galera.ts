/**
 * A throwaway 3-node MariaDB Galera cluster on 127.0.0.1 for tests and the chaos suite.
 *
 * `GaleraCluster.create()` gives each node its own temp dir, unix socket and free ports (SQL, gmcast, IST, SST),
 * bootstraps node 1 with `--wsrep-new-cluster`, creates a password user on 127.0.0.1 (it replicates), then joins
 * the others by rsync SST and waits until every node is Synced in a primary component of all members.
 *
 * Faults: kill / restart (wsrep-recover, then IST from the recovered position), pause / resume (SIGSTOP: the others
 * evict it), isolate / heal (the node keeps running and answering SQL but leaves the group: a non-primary minority
 * that refuses writes with 1047), stopAll / bootstrapFromMostAdvanced (the whole cluster killed, then rebuilt from
 * the node with the highest recovered seqno).
 *
 * Isolation uses Galera's own `gmcast.isolate` provider option (what MariaDB's galera test suite uses) rather than
 * TCP relays in front of the gmcast ports: members tell each other their real gmcast listen addresses in the
 * handshake and then connect to those directly, so a relay named in wsrep_cluster_address would soon be bypassed.
 *
 * Nodes are stopped by PID only; each has the exit hook and watchdog of mariadbd.ts, so nothing outlives us.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Log, ensurePackage, findExecutable } from './apt';
import { type TestDatabase, createDatabase, withDatabase } from './mariadb';
import { createPasswordUser, ensureMariadb } from './mariadbd';
import { GALERA_PROVIDER, GaleraNode, type NodePorts, type WsrepStatus, describe } from './galeraNode';
import { freePort } from './ports';
import { pollFor } from './wait';

export { type GaleraNode, type NodePorts, type WsrepStatus } from './galeraNode';

const defaultLog: Log = (line) => process.stderr.write(`[galera] ${line}\n`);

export interface GaleraClusterOptions {
  nodes?: number;
  log?: Log;
  /** Parent for the temp dirs (default: os.tmpdir()). */
  baseDir?: string;
  /** Bound for one node to become Synced (bootstrap, SST, IST). */
  syncTimeoutMs?: number;
}

/** galera-4 and rsync (for SST) from Debian when missing; mariadbd via ensureMariadb. */
function ensureGaleraPackages(log: Log): void {
  ensurePackage('galera-4', () => (fs.existsSync(GALERA_PROVIDER) ? GALERA_PROVIDER : undefined), log);
  ensurePackage('rsync', () => findExecutable(['rsync']), log);
}

/** `count` distinct free ports (freePort may hand out a port twice in a row). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export class GaleraCluster {
  readonly nodes: GaleraNode[];
  private user = '';
  private password = '';

  private constructor(
    readonly dir: string,
    nodes: GaleraNode[],
    private readonly log: Log,
    private readonly syncTimeoutMs: number,
  ) {
    this.nodes = nodes;
  }

  static async create(options: GaleraClusterOptions = {}): Promise<GaleraCluster> {
    const log = options.log ?? defaultLog;
    const count = options.nodes ?? 3;
    const bin = ensureMariadb(log);
    ensureGaleraPackages(log);
    const dir = fs.mkdtempSync(path.join(options.baseDir ?? os.tmpdir(), 'leaf-galera-'));
    const flat = await distinctFreePorts(count * 4);
    const ports: NodePorts[] = Array.from({ length: count }, (_, i) => {
      const [sql, gmcast, ist, sst] = flat.slice(4 * i, 4 * i + 4);
      if (sql === undefined || gmcast === undefined || ist === undefined || sst === undefined)
        throw new Error(`${flat.length} free ports for ${count} nodes of 4 each`);
      return { sql, gmcast, ist, sst };
    });
    const address = `gcomm://${ports.map((p) => `127.0.0.1:${p.gmcast}`).join(',')}`;
    const clusterName = `leaf-test-${randomBytes(4).toString('hex')}`;
    const nodes = ports.map(
      (p, i) => new GaleraNode(i, `node ${i + 1}`, path.join(dir, `node${i + 1}`), p, bin, address, clusterName, log),
    );
    const cluster = new GaleraCluster(dir, nodes, log, options.syncTimeoutMs ?? 60_000);
    try {
      await cluster.bootstrapFresh();
      return cluster;
    } catch (error) {
      await cluster.destroy();
      throw error;
    }
  }

  private async bootstrapFresh(): Promise<void> {
    const started = Date.now();
    const [first, ...others] = this.nodes;
    if (first === undefined) throw new Error('a Galera cluster needs at least one node');
    first.initialise();
    first.start({ kind: 'new-cluster' });
    this.log(
      `${first.name} bootstrapping a new cluster… synced in ${seconds(await first.waitSynced(1, this.syncTimeoutMs, 'bootstrapped'))}`,
    );
    const { user, password } = await createPasswordUser(first.rootOptions, 'leaf_test', 'leaf');
    this.user = user;
    this.password = password;
    // One joiner at a time: a donor serves one SST, and two at once on 2 cores only slows both.
    for (const node of others) await this.join(node, undefined);
    this.log(
      `cluster of ${this.nodes.length} Synced in ${seconds(Date.now() - started)} (ports ${this.nodes.map((n) => n.ports.sql).join(', ')})`,
    );
  }

  /** Starts a stopped node as a joiner and waits until it is Synced with every running member. */
  private async join(node: GaleraNode, position: string | undefined): Promise<void> {
    node.start({ kind: 'join', position });
    const from = position ? `from ${position}` : 'with an empty datadir';
    const ms = await node.waitSynced(this.runningCount(), this.syncTimeoutMs, `joined ${from}`, this.peerOf(node));
    this.log(`${node.name} joining ${from}… synced by ${node.stateTransfer()} in ${seconds(ms)}`);
  }

  /** A running, unpaused member other than `node`, to compare views with. */
  private peerOf(node: GaleraNode): GaleraNode | undefined {
    return this.nodes.find((n) => n !== node && n.isRunning && !n.isPaused);
  }

  private runningCount(): number {
    return this.nodes.filter((n) => n.isRunning).length;
  }

  private node(i: number): GaleraNode {
    const node = this.nodes[i];
    if (node === undefined) throw new Error(`no node ${i} (nodes are 0…${this.nodes.length - 1})`);
    return node;
  }

  /** "127.0.0.1:port" of node i's SQL port. */
  host(i: number): string {
    return `127.0.0.1:${this.node(i).ports.sql}`;
  }

  get hosts(): string[] {
    return this.nodes.map((_, i) => this.host(i));
  }

  /** mysql://leaf:pass@127.0.0.1:port/database for node i. */
  url(i: number, database = 'leaf_test'): string {
    return this.multiHostUrl([i], database);
  }

  get urls(): string[] {
    return this.nodes.map((_, i) => this.url(i));
  }

  /** mysql://leaf:pass@127.0.0.1:p1,127.0.0.1:p2,…/database with the hosts in `order` (node indexes). */
  multiHostUrl(order: number[] = this.nodes.map((_, i) => i), database = 'leaf_test'): string {
    const auth = `${encodeURIComponent(this.user)}:${encodeURIComponent(this.password)}`;
    return `mysql://${auth}@${order.map((i) => this.host(i)).join(',')}/${database}`;
  }

  /** A fresh database (created through node `via`, replicated to all); `url` points at that node. */
  createDatabase(prefix = 'leaf_it', via = 0): Promise<TestDatabase> {
    return createDatabase(this.url(via), prefix);
  }

  /** `url` of node i switched to `database`. */
  urlFor(i: number, database: string): string {
    return withDatabase(this.url(i), database);
  }

  status(i: number): Promise<WsrepStatus | undefined> {
    return this.node(i).status();
  }

  /** Waits until every running, unpaused member other than `except` reports a primary component of `size`. */
  private async waitMembers(size: number, what: string, except: number[] = []): Promise<void> {
    const members = this.nodes.filter((n, i) => n.isRunning && !n.isPaused && !except.includes(i));
    const started = Date.now();
    const done = await pollFor(this.syncTimeoutMs, async () => {
      const all = await Promise.all(members.map((n) => n.status()));
      return all.every((s) => s?.clusterStatus === 'Primary' && s.clusterSize === size && s.state === 'Synced')
        ? true
        : undefined;
    });
    if (done === undefined) {
      const states = await Promise.all(members.map(async (n) => `${n.name}: ${describe(await n.status())}`));
      throw new Error(
        `${what}: the others did not settle on a primary component of ${size} within ${this.syncTimeoutMs} ms (${states.join('; ')})`,
      );
    }
    this.log(`${what}: the others are a primary component of ${size} after ${seconds(Date.now() - started)}`);
  }

  /** SIGKILL node i; resolves once the survivors have evicted it. */
  async kill(i: number): Promise<void> {
    const node = this.node(i);
    await node.kill();
    this.log(`${node.name} killed (SIGKILL)`);
    await this.waitMembers(this.runningCount(), `${node.name} killed`);
  }

  /** A killed node back: wsrep-recover, then start from that position so it rejoins by IST; waits until Synced. */
  async restart(i: number): Promise<void> {
    const node = this.node(i);
    const { position } = await node.recover();
    this.log(`${node.name} recovered position ${position}`);
    await this.join(node, position);
  }

  /** SIGSTOP node i; resolves once the others have evicted it. */
  async pause(i: number): Promise<void> {
    const node = this.node(i);
    node.pause();
    this.log(`${node.name} paused (SIGSTOP)`);
    await this.waitMembers(this.runningCount() - 1, `${node.name} paused`, [i]);
  }

  /** SIGCONT node i and wait until it is Synced again; a node left outside the primary component is restarted. */
  async resume(i: number): Promise<void> {
    const node = this.node(i);
    node.resume();
    this.log(`${node.name} resumed (SIGCONT)`);
    await this.rejoinOrRestart(i, 'resumed');
  }

  /** Node i leaves the group (gmcast.isolate=1) but keeps running: a non-primary node that refuses writes. */
  async isolate(i: number): Promise<void> {
    const node = this.node(i);
    await node.rootQuery(["SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'"]);
    this.log(`${node.name} isolated (gmcast.isolate=1)`);
    await this.waitMembers(this.runningCount() - 1, `${node.name} isolated`, [i]);
    const alone = await pollFor(this.syncTimeoutMs, async () => {
      const s = await node.status();
      return s !== undefined && s.clusterStatus !== 'Primary' ? s : undefined;
    });
    if (alone === undefined)
      throw new Error(`${node.name} still in a primary component ${this.syncTimeoutMs} ms after isolation`);
    this.log(`${node.name} is ${describe(alone)}`);
  }

  /** Lets node i talk to the group again and waits until it is Synced (restarting it if it stays outside). */
  async heal(i: number): Promise<void> {
    const node = this.node(i);
    await node.rootQuery(["SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'"]);
    this.log(`${node.name} healed (gmcast.isolate=0)`);
    await this.rejoinOrRestart(i, 'healed');
  }

  /**
   * Waits (bounded) for node i to be Synced in a full primary component. A node that stays non-primary — Galera
   * may leave a long-suspended member outside for good — is killed and restarted by IST.
   */
  private async rejoinOrRestart(i: number, what: string): Promise<void> {
    const node = this.node(i);
    const size = this.runningCount();
    try {
      const ms = await node.waitSynced(
        size,
        Math.min(30_000, this.syncTimeoutMs),
        `${what} and synced`,
        this.peerOf(node),
      );
      this.log(`${node.name} ${what}… synced in ${seconds(ms)}`);
    } catch (error) {
      this.log(`${node.name} did not rejoin by itself (${String(error).split('\n')[0]}): restarting it`);
      await this.kill(i);
      await this.restart(i);
    }
  }

  /** SIGKILL of every node at once: the whole cluster is down. */
  async stopAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
    this.log(`every node killed (SIGKILL)`);
  }

  /**
   * After stopAll: wsrep-recover every node, bootstrap a new cluster from the most advanced one (highest seqno,
   * marked safe_to_bootstrap), then join the others from their positions. Returns the index of the node it
   * bootstrapped from.
   */
  async bootstrapFromMostAdvanced(): Promise<number> {
    const started = Date.now();
    const recovered = [];
    // One at a time: each recovery starts InnoDB, and the 2 cores are shared.
    for (const node of this.nodes) recovered.push({ node, ...(await node.recover()) });
    this.log(`recovered positions: ${recovered.map((r) => `${r.node.name} ${r.position}`).join(', ')}`);
    const best = recovered.reduce((a, b) => (b.seqno > a.seqno ? b : a));
    best.node.setSafeToBootstrap();
    best.node.start({ kind: 'new-cluster', position: best.position });
    this.log(
      `${best.node.name} (seqno ${best.seqno}) bootstrapping… synced in ${seconds(await best.node.waitSynced(1, this.syncTimeoutMs, 'bootstrapped'))}`,
    );
    for (const r of recovered) if (r !== best) await this.join(r.node, r.position);
    this.log(`whole cluster back in ${seconds(Date.now() - started)}`);
    return best.node.index;
  }

  /** Kills every node by PID and removes the temp dirs. */
  async destroy(): Promise<void> {
    await this.stopAll();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
