/**
 * One member of the throwaway Patroni cluster (see patroni.ts): its dirs, ports and Patroni process (run as the
 * `postgres` user: PostgreSQL refuses root), its REST API, and the faults done to it. The cluster-level
 * choreography lives in patroni.ts.
 *
 * Process tree: we spawn a tiny Python child subreaper (REAPER below) that runs Patroni as `postgres`. Patroni
 * starts postgres in a session of its own and lets it go (like pg_ctl), so without a subreaper a killed postmaster
 * would be reparented to PID 1 — which on this machine never reaps — and its zombie would keep the PID that
 * postmaster.pid names, confusing Patroni's "is postgres still running" check on the next start. Every process of
 * the node carries the node's marker in its environment (markedProcesses.ts), which is how kill() finds them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Log } from './apt';
import { stopChild, track } from './children';
import { logTail } from './mariadbd';
import { killMarked, markedEnv, markedPids } from './markedProcesses';
import { type ClusterSettings, type NodePaths, patroniConfig } from './patroniConfig';
import { psql } from './psql';
import { pollFor } from './wait';

const REAPER = `# leaf-harness-reaper: child subreaper running Patroni as postgres; reaps postgres too
import ctypes, os, signal, subprocess, sys
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
child = subprocess.Popen(sys.argv[3:], user=int(sys.argv[1]), group=int(sys.argv[2]), extra_groups=[])
def forward(sig, _frame):
    try:
        os.kill(child.pid, sig)
    except OSError:
        pass
signal.signal(signal.SIGTERM, forward)
signal.signal(signal.SIGINT, forward)
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
`;

export interface NodePorts {
  pg: number;
  api: number;
}

/** GET /patroni: the node's own view (role "master" or "replica" in Patroni 3.0). */
export interface PatroniStatus {
  state: string;
  role: string;
  timeline?: number;
  /** In synchronous mode: this replica is the one named in the DCS /sync key. */
  sync_standby?: boolean;
  xlog?: { location?: number; received_location?: number; replayed_location?: number; paused?: boolean };
  /** On the primary: its walsenders (pg_stat_replication). */
  replication?: Array<{ application_name: string; state: string; sync_state: string }>;
}

/** GET /cluster: the members as the DCS knows them. */
export interface ClusterView {
  members: Array<{
    name: string;
    role: string;
    state: string;
    host?: string;
    port?: number;
    timeline?: number;
    lag?: number | string;
  }>;
}

export interface OsUser {
  uid: number;
  gid: number;
}

export class PatroniNode {
  readonly configFile: string;
  readonly patroniLog: string;
  private child: ChildProcess | null = null;
  private exitInfo: string | null = null;
  private frozen: number[] = [];

  constructor(
    readonly index: number,
    readonly name: string,
    readonly paths: NodePaths,
    readonly ports: NodePorts,
    /** This node's processes' marker (the cluster's marker + "/" + name). */
    readonly marker: string,
    private readonly settings: ClusterSettings,
    private readonly owner: OsUser,
    private readonly log: Log,
  ) {
    this.configFile = path.join(paths.dir, 'patroni.yml');
    this.patroniLog = path.join(paths.dir, 'patroni.log');
  }

  /** Creates the node's dirs, owned by postgres (data dir 0700, as initdb and pg_basebackup insist), and its config. */
  prepare(): void {
    const { dir, dataDir, socketDir, logDir } = this.paths;
    for (const d of [dir, socketDir, logDir]) fs.mkdirSync(d, { recursive: true, mode: 0o755 });
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(
      this.configFile,
      `${JSON.stringify(patroniConfig(this.name, this.paths, this.ports, this.settings), null, 2)}\n`,
      { mode: 0o600 },
    );
    for (const p of [dir, socketDir, logDir, dataDir, this.configFile]) fs.chownSync(p, this.owner.uid, this.owner.gid);
  }

  get isRunning(): boolean {
    return this.child !== null;
  }

  get apiBase(): string {
    return `http://127.0.0.1:${this.ports.api}`;
  }

  /** Spawns Patroni (under the reaper); it bootstraps, clones or rejoins by itself. */
  start(): void {
    if (this.child !== null) throw new Error(`${this.name} is already running`);
    this.frozen = [];
    const out = fs.openSync(this.patroniLog, 'a');
    fs.fchownSync(out, this.owner.uid, this.owner.gid);
    const env = markedEnv(this.marker, { LANG: 'C.UTF-8', HOME: this.paths.dir });
    const args = ['-c', REAPER, String(this.owner.uid), String(this.owner.gid), '/usr/bin/patroni', this.configFile];
    const child: ChildProcess = track(
      spawn('python3', args, { cwd: this.paths.dir, env, stdio: ['ignore', out, out] }),
    );
    fs.closeSync(out);
    this.child = child;
    this.exitInfo = null;
    const gone = (info: string) => {
      if (this.child !== child) return;
      this.exitInfo = info;
      this.child = null;
    };
    child.once('exit', (code, signal) => gone(`exited with code ${code} signal ${signal}`));
    child.once('error', (error) => gone(`failed to spawn: ${error.message}`));
    this.log(
      `${this.name} Patroni started (reaper pid ${child.pid}; postgres 127.0.0.1:${this.ports.pg}, REST API ${this.ports.api})`,
    );
  }

  /** Why the last start ended, or null while it runs. */
  lastExit(): string | null {
    return this.exitInfo;
  }

  /** Live PIDs of this node: reaper, Patroni, postgres and its backends. */
  pids(): number[] {
    return markedPids(this.marker);
  }

  /**
   * The machine dies: SIGKILL to Patroni, postgres and every backend at once (each by PID), then the reaper once
   * it has reaped them. No shutdown checkpoint, no leader key released: the others see the lease expire.
   */
  async kill(timeoutMs = 10_000): Promise<void> {
    const reaper = this.child;
    const except = reaper?.pid === undefined ? [] : [reaper.pid];
    const left = await killMarked(this.marker, timeoutMs, { except });
    if (reaper !== null) await stopChild(reaper, 0, { signal: 'SIGKILL' });
    const after = [...left, ...this.pids()];
    if (after.length > 0)
      throw new Error(`${this.name}: processes ${after.join(', ')} still alive ${timeoutMs} ms after SIGKILL`);
    this.frozen = [];
  }

  /** SIGTERM to Patroni (it stops postgres with a fast shutdown and exits); SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 15_000): Promise<void> {
    const reaper = this.child;
    if (reaper === null) return this.kill();
    // A frozen WAL receiver would hold up postgres's shutdown.
    for (const pid of this.frozen) this.signal(pid, 'SIGCONT');
    let escalated = false;
    await stopChild(reaper, timeoutMs, { onEscalate: () => (escalated = true) });
    if (escalated) this.log(`${this.name} did not stop within ${timeoutMs} ms: killed. Log tail:\n${this.tail(10)}`);
    await this.kill();
  }

  private signal(pid: number, signal: NodeJS.Signals): void {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  }

  /** GET `route` on this node's REST API; undefined when it does not answer in time. */
  async rest<T>(route: string, timeoutMs = 2_000): Promise<{ status: number; body: T } | undefined> {
    if (this.child === null) return undefined;
    try {
      const response = await fetch(`${this.apiBase}${route}`, { signal: AbortSignal.timeout(timeoutMs) });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // plain text answer
      }
      return { status: response.status, body: body as T };
    } catch {
      return undefined;
    }
  }

  /** POST (or PATCH) a JSON body to `route`; Patroni's switchover answers only once it is done (or gave up). */
  async post(
    route: string,
    body: object,
    timeoutMs: number,
    method: 'POST' | 'PATCH' = 'POST',
  ): Promise<{ status: number; text: string }> {
    const response = await fetch(`${this.apiBase}${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, text: await response.text() };
  }

  async status(timeoutMs = 2_000): Promise<PatroniStatus | undefined> {
    const answer = await this.rest<PatroniStatus>('/patroni', timeoutMs);
    return answer !== undefined && typeof answer.body === 'object' ? answer.body : undefined;
  }

  async clusterView(timeoutMs = 2_000): Promise<ClusterView | undefined> {
    const answer = await this.rest<ClusterView>('/cluster', timeoutMs);
    return answer?.status === 200 && typeof answer.body === 'object' ? answer.body : undefined;
  }

  /** libpq conninfo as the superuser over this node's unix socket (trusted in pg_hba). */
  socketConninfo(database = 'postgres'): string {
    return `host=${this.paths.socketDir} port=${this.ports.pg} user=${this.settings.superuser.user} dbname=${database}`;
  }

  /** Statements as the superuser on this node (whatever its role), over its socket. */
  superQuery(statements: string | string[], database = 'postgres', timeoutMs = 10_000): Promise<string[][]> {
    return psql(this.socketConninfo(database), statements, { timeoutMs, binDir: this.settings.binDir });
  }

  /**
   * Freezes this replica's WAL receiver (SIGSTOP, by the PID pg_stat_wal_receiver names, checked to be ours): the
   * primary keeps sending, but nothing more is written to this node's disk; the bytes wait in socket buffers.
   */
  async freezeWalReceiver(timeoutMs = 10_000): Promise<number> {
    const pid = await pollFor(timeoutMs, async () => {
      const rows = await this.superQuery("SELECT pid FROM pg_stat_wal_receiver WHERE status = 'streaming'").catch(
        () => [],
      );
      const found = Number(rows[0]?.[0]);
      return Number.isInteger(found) && found > 0 && this.pids().includes(found) ? found : undefined;
    });
    if (pid === undefined)
      throw new Error(`${this.name} has no streaming WAL receiver within ${timeoutMs} ms. Log tail:\n${this.tail()}`);
    process.kill(pid, 'SIGSTOP');
    this.frozen.push(pid);
    this.log(`${this.name} WAL receiver pid ${pid} frozen (SIGSTOP)`);
    return pid;
  }

  /**
   * SIGKILLs the frozen WAL receiver, so what waited in its socket is never written here. postgres treats a
   * receiver killed by a signal as a crash: it restarts its processes and recovers from its own disk, still a
   * replica, reconnecting to whichever primary Patroni names.
   */
  discardFrozenWal(): void {
    for (const pid of this.frozen) this.signal(pid, 'SIGKILL');
    if (this.frozen.length > 0)
      this.log(`${this.name} frozen WAL receiver ${this.frozen.join(', ')} killed: its unwritten WAL is gone`);
    this.frozen = [];
  }

  /** SIGCONT to a frozen WAL receiver: it writes what waited and streams on, nothing lost. */
  thawWalReceiver(): void {
    for (const pid of this.frozen) this.signal(pid, 'SIGCONT');
    this.frozen = [];
  }

  /** Patroni's and postgres's log tails, for error messages. */
  tail(lines = 20): string {
    return `--- ${this.name} patroni.log ---\n${logTail(this.patroniLog, lines)}\n--- ${this.name} postgresql.log ---\n${logTail(path.join(this.paths.logDir, 'postgresql.log'), lines)}`;
  }
}
