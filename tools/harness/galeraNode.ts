/**
 * One member of the throwaway Galera cluster (see galera.ts): its temp dir, ports and `mariadbd` child, started as
 * the bootstrap node of a new cluster or as a joiner (SST, or IST from a recovered position), killed, paused, or
 * asked for its wsrep status. The cluster-level choreography lives in galera.ts.
 */
import { type ChildProcess, execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import type { Log } from './apt';
import { stopChild } from './children';
import { type MariadbBinaries, installDatadir, logTail, queryAll, serverArgs, spawnMariadbd } from './mariadbd';
import { pollFor } from './wait';

export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so';

/**
 * Group-communication timeouts shortened for tests, so a dead or frozen member is evicted in ~2-3 s instead of
 * 5-15 s. Galera requires keepalive_period ≤ suspect_timeout ≤ inactive_timeout and install_timeout ≤
 * inactive_timeout; not shorter than this, because three servers on a busy 2-core machine must not suspect
 * each other spuriously during SST or a burst of writes.
 */
const FAST_EVICTION = [
  'evs.keepalive_period=PT0.5S',
  'evs.inactive_check_period=PT0.5S',
  'evs.suspect_timeout=PT2S',
  'evs.inactive_timeout=PT4S',
  'evs.install_timeout=PT3S',
  'gmcast.peer_timeout=PT2S',
];

export interface NodePorts {
  sql: number;
  gmcast: number;
  ist: number;
  sst: number;
}

export interface WsrepStatus {
  state: string;
  clusterSize: number;
  clusterStatus: string;
  ready: boolean;
  /** wsrep_cluster_conf_id: bumped at every membership change, so equal values mean the same view. */
  confId: number;
}

export type StartMode = { kind: 'new-cluster'; position?: string } | { kind: 'join'; position?: string };

export class GaleraNode {
  readonly datadir: string;
  readonly socket: string;
  readonly errorLog: string;
  private child: ChildProcess | null = null;
  private spawned: { exitInfo(): string | null } | null = null;
  private paused = false;
  /** Where the error log ended when the node was last started: what follows belongs to that run. */
  private logOffset = 0;

  constructor(
    readonly index: number,
    readonly name: string,
    readonly dir: string,
    readonly ports: NodePorts,
    private readonly bin: MariadbBinaries,
    /** gcomm://… naming every member's gmcast address. */
    private readonly clusterAddress: string,
    private readonly clusterName: string,
    private readonly log: Log,
  ) {
    this.datadir = path.join(dir, 'data');
    this.socket = path.join(dir, 'mariadb.sock');
    this.errorLog = path.join(dir, 'mariadbd.err');
    fs.mkdirSync(this.datadir, { recursive: true });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get isRunning(): boolean {
    return this.child !== null;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** root over this node's unix socket (no password in the throwaway datadir). */
  get rootOptions(): mysql.ConnectionOptions {
    return { socketPath: this.socket, user: 'root', password: '', connectTimeout: 2_000 };
  }

  /** The error log's last lines, after this start's [ERROR] lines (the cause of an abort is often far above). */
  tail(lines = 25): string {
    let errors: string[] = [];
    try {
      const text = fs.readFileSync(this.errorLog).subarray(this.logOffset).toString('utf8');
      errors = text.split('\n').filter((line) => line.includes('[ERROR]'));
    } catch {
      // no log yet
    }
    const head = errors.length > 0 ? `[ERROR] lines since this start:\n${errors.slice(-20).join('\n')}\n---\n` : '';
    return head + logTail(this.errorLog, lines);
  }

  /** System tables for the node that bootstraps a brand-new cluster; joiners get theirs by SST. */
  initialise(): void {
    installDatadir(this.bin, this.datadir, this.log);
  }

  /** Every option but the start mode: the same ones serve `--wsrep-recover`. */
  private args(): string[] {
    const p = this.ports;
    const provider = [
      `gmcast.listen_addr=tcp://127.0.0.1:${p.gmcast}`,
      `ist.recv_addr=127.0.0.1:${p.ist}`,
      'gcache.size=64M',
      ...FAST_EVICTION,
    ];
    return [
      ...serverArgs({ dir: this.dir, datadir: this.datadir, socket: this.socket, port: p.sql, bufferPool: '32M' }),
      '--max-connections=200',
      '--binlog-format=ROW',
      '--default-storage-engine=InnoDB',
      '--innodb-autoinc-lock-mode=2',
      '--wsrep-on=ON',
      `--wsrep-provider=${GALERA_PROVIDER}`,
      `--wsrep-cluster-name=${this.clusterName}`,
      `--wsrep-cluster-address=${this.clusterAddress}`,
      `--wsrep-provider-options=${provider.join(';')}`,
      `--wsrep-node-name=${this.name}`,
      `--wsrep-node-address=127.0.0.1:${p.gmcast}`,
      `--wsrep-sst-receive-address=127.0.0.1:${p.sst}`,
      '--wsrep-sst-method=rsync',
    ];
  }

  /** Spawns mariadbd; returns once the process exists (see waitSynced for readiness). */
  start(mode: StartMode): void {
    if (this.child !== null) throw new Error(`${this.name} is already running`);
    // Run as root, the rsync SST daemon writes as `nobody`: a joiner's datadir must be writable by it.
    if (mode.kind === 'join') execFileSync('chown', ['-R', 'nobody', this.datadir]);
    this.logOffset = fs.existsSync(this.errorLog) ? fs.statSync(this.errorLog).size : 0;
    const extra = [
      mode.kind === 'new-cluster' ? '--wsrep-new-cluster' : '',
      mode.position ? `--wsrep-start-position=${mode.position}` : '',
    ];
    const spawned = spawnMariadbd(this.bin.mariadbd, [...this.args(), ...extra.filter(Boolean)], {
      errorLog: this.errorLog,
      dir: this.dir,
      marker: this.datadir,
      onGone: (gone) => {
        if (this.child === gone) this.child = null;
        this.paused = false;
      },
    });
    this.child = spawned.child;
    this.spawned = spawned;
    this.log(
      `${this.name} pid ${this.child.pid} started (${mode.kind}${mode.position ? ` from ${mode.position}` : ''})`,
    );
  }

  /**
   * How the last start got its state, from its error log: 'SST' (a full copy, followed by a short IST, so "IST
   * received" alone proves nothing), 'IST' (only the missing write sets), 'none' (bootstrap, or not yet).
   */
  stateTransfer(): 'SST' | 'IST' | 'none' {
    if (!fs.existsSync(this.errorLog)) return 'none';
    const text = fs.readFileSync(this.errorLog).subarray(this.logOffset).toString('utf8');
    // The server logs "SST received" either way (it always runs the SST script); the rsync script itself says
    // whether the donor sent the datadir ("rsync SST completed") or bypassed it for IST ("rsync IST completed").
    const done = /rsync (SST|IST) completed on joiner/.exec(text);
    return done === null ? 'none' : (done[1] as 'SST' | 'IST');
  }

  /** Why the last start ended, or null while it runs (or never ran). */
  exitInfo(): string | null {
    return this.spawned?.exitInfo() ?? null;
  }

  /** SIGKILL, resolved once the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    if (this.paused) this.resume();
    await stopChild(child, 0, { signal: 'SIGKILL' });
  }

  pause(): void {
    if (this.child?.pid === undefined) throw new Error(`${this.name} is not running`);
    process.kill(this.child.pid, 'SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    if (this.child?.pid !== undefined) process.kill(this.child.pid, 'SIGCONT');
    this.paused = false;
  }

  /** `mariadbd --wsrep-recover` on the stopped node: the last committed position, "uuid:seqno". */
  async recover(timeoutMs = 60_000): Promise<{ uuid: string; seqno: number; position: string }> {
    if (this.child !== null) throw new Error(`${this.name} must be stopped before --wsrep-recover`);
    const output = await new Promise<string>((resolve) => {
      execFile(
        this.bin.mariadbd,
        [...this.args(), '--wsrep-recover'],
        { timeout: timeoutMs, maxBuffer: 8 << 20 },
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      );
    });
    fs.appendFileSync(this.errorLog, output);
    const matches = [...output.matchAll(/WSREP: Recovered position:\s*([0-9a-f-]{36}):(-?\d+)/g)];
    const last = matches.at(-1);
    const uuid = last?.[1];
    const seqno = last?.[2];
    if (uuid === undefined || seqno === undefined)
      throw new Error(
        `${this.name}: --wsrep-recover printed no position. Output tail:\n${output.split('\n').slice(-25).join('\n')}`,
      );
    return { uuid, seqno: Number(seqno), position: `${uuid}:${seqno}` };
  }

  /** Marks this node's saved state as the one a new cluster may start from (grastate.dat). */
  setSafeToBootstrap(): void {
    const file = path.join(this.datadir, 'grastate.dat');
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(
      file,
      /safe_to_bootstrap:/.test(text)
        ? text.replace(/safe_to_bootstrap:\s*\d/, 'safe_to_bootstrap: 1')
        : `${text}safe_to_bootstrap: 1\n`,
    );
  }

  /** wsrep status over a short-timeout socket connection; undefined when the node does not answer. */
  async status(timeoutMs = 1_500): Promise<WsrepStatus | undefined> {
    if (this.child === null || this.paused) return undefined;
    let conn: mysql.Connection | undefined;
    const timer = setTimeout(() => conn?.destroy(), timeoutMs);
    try {
      conn = await mysql.createConnection({ ...this.rootOptions, connectTimeout: timeoutMs });
      const [rows] = await conn.query<mysql.RowDataPacket[]>(
        "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment','wsrep_cluster_size','wsrep_cluster_status','wsrep_ready','wsrep_cluster_conf_id')",
      );
      const v = new Map(rows.map((r) => [String(r.Variable_name), String(r.Value)]));
      return {
        state: v.get('wsrep_local_state_comment') ?? '',
        clusterSize: Number(v.get('wsrep_cluster_size') ?? 0),
        clusterStatus: v.get('wsrep_cluster_status') ?? '',
        ready: v.get('wsrep_ready') === 'ON',
        confId: Number(v.get('wsrep_cluster_conf_id') ?? -1),
      };
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
      conn?.destroy();
    }
  }

  /**
   * Waits until this node is Synced in a primary component of `size` members, logging progress every 5 s; throws
   * naming the node, with its error log tail, when it exits first or `timeoutMs` pass. With `peer`, also in the
   * same view as that member: a node just woken from SIGSTOP still reports its stale, pre-eviction view as Synced.
   */
  async waitSynced(size: number, timeoutMs: number, what = 'synced', peer?: GaleraNode): Promise<number> {
    const started = Date.now();
    let nextReport = started + 5_000;
    let last: WsrepStatus | undefined;
    const ok = await pollFor(timeoutMs, async () => {
      const exit = this.exitInfo();
      if (this.child === null)
        throw new Error(`${this.name} ${exit ?? 'is not running'} before it was ${what}. Log tail:\n${this.tail()}`);
      last = await this.status();
      if (last?.state === 'Synced' && last.clusterStatus === 'Primary' && last.clusterSize === size) {
        if (peer === undefined) return true;
        const other = await peer.status();
        if (other?.confId === last.confId && other.clusterSize === size) return true;
      }
      if (Date.now() > nextReport) {
        nextReport += 5_000;
        this.log(
          `${this.name} not ${what} yet after ${((Date.now() - started) / 1000).toFixed(0)} s: ${describe(last)}`,
        );
      }
      return undefined;
    });
    if (ok === undefined)
      throw new Error(
        `${this.name} not ${what} (size ${size}) within ${timeoutMs} ms: ${describe(last)}. Log tail:\n${this.tail()}`,
      );
    return Date.now() - started;
  }

  /** Runs statements as root on this node. */
  rootQuery(statements: Array<string | [string, unknown[]]>): Promise<unknown[]> {
    return queryAll(this.rootOptions, statements);
  }
}

export function describe(s: WsrepStatus | undefined): string {
  return s === undefined
    ? 'no answer'
    : `${s.state}, ${s.clusterStatus}, size ${s.clusterSize}, ready ${s.ready ? 'ON' : 'OFF'}`;
}
