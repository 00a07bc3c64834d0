/**
 * One leaf-ts node (`node --import tsx server.ts`) under the harness: start on a fixed port, SIGKILL, restart on the
 * same port, graceful stop. Every process lifetime gets a number (`life`); the windows in which the node was
 * down (from the kill to the first healthy answer of the new process) are kept, so a client error can be told
 * apart: expected (the node was being killed) or a violation.
 *
 * Stray processes are prevented by an 'exit' hook (SIGKILL, synchronous) and a small detached watchdog per
 * process that kills it when the harness dies without cleaning up (only if /proc/<pid>/environ still carries this
 * run's CHAOS_RUN_ID, so a recycled PID is never touched).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';

export type NodeState = 'down' | 'starting' | 'up';

export interface LogEvent {
  node: string;
  life: number;
  /** Harness receive time (ms since epoch). */
  at: number;
  level: string;
  event: string;
  fields: Record<string, unknown>;
}

export interface LeafNodeOptions {
  name: string;
  port: number;
  repoRoot: string;
  runId: string;
  env: Record<string, string>;
  logFile: string;
  onLog?: (e: LogEvent) => void;
  /** A process that exits without the harness asking: a violation. */
  onUnexpectedExit?: (node: LeafNode, code: number | null, signal: NodeJS.Signals | null) => void;
}

const live = new Set<ChildProcess>();
let hookInstalled = false;
function installExitHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  process.on('exit', () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL');
      } catch {
        // gone
      }
    }
  });
}

const WATCHDOG = `
const [ownerPid, pid, marker] = process.argv.slice(1);
const fs = require('fs');
const alive = (p) => { try { process.kill(+p, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const ours = () => { try { return fs.readFileSync('/proc/' + pid + '/environ', 'latin1').includes(marker); } catch { return false; } };
const t = setInterval(() => {
  if (!alive(pid) || !ours()) { clearInterval(t); return; }
  if (alive(ownerPid)) return;
  clearInterval(t);
  try { process.kill(+pid, 'SIGKILL'); } catch {}
}, 1000);
`;

/** Environment of the parent without anything that would change a node's behaviour behind our back. */
export function cleanEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('LEAF_') || k === 'DATABASE_URL' || k === 'PORT' || k === 'HOST' || k.startsWith('VITEST')) continue;
    out[k] = v;
  }
  return out;
}

export function httpGetStatus(port: number, path: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class LeafNode {
  readonly name: string;
  readonly port: number;
  state: NodeState = 'down';
  life = 0;
  /** [from, to] windows (ms since epoch) when this node was not serving; `to` undefined while down. */
  readonly downWindows: Array<{ from: number; to: number | undefined }> = [];
  startupsMs: number[] = [];
  private child: ChildProcess | null = null;
  private expectingExit = false;
  private readonly tail: string[] = [];
  private readonly log: fs.WriteStream;

  constructor(private readonly options: LeafNodeOptions) {
    this.name = options.name;
    this.port = options.port;
    this.log = fs.createWriteStream(options.logFile, { flags: 'a' });
    this.downWindows.push({ from: Date.now(), to: undefined });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Whether the node was (possibly) down at any moment of [from, to]. */
  wasDownDuring(from: number, to: number): boolean {
    for (const w of this.downWindows) if (w.from <= to && (w.to ?? Infinity) >= from) return true;
    return false;
  }

  logTail(lines = 30): string {
    return this.tail.slice(-lines).join('\n');
  }

  /** Spawns the process and waits until /api/health answers 200. */
  async start(timeoutMs = 45_000): Promise<number> {
    if (this.child !== null) throw new Error(`${this.name} is already running`);
    installExitHook();
    const started = Date.now();
    this.life++;
    const life = this.life;
    this.state = 'starting';
    this.expectingExit = false;
    this.write(`--- ${new Date().toISOString()} start life ${life} on port ${this.port}\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
      cwd: this.options.repoRoot,
      env: {
        ...cleanEnv(),
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(this.port),
        CHAOS_RUN_ID: this.options.runId,
        ...this.options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    live.add(child);
    if (child.pid !== undefined) {
      spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), String(child.pid), `CHAOS_RUN_ID=${this.options.runId}`], {
        detached: true,
        stdio: 'ignore',
      }).unref();
    }
    let partial = '';
    const onData = (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) this.line(line, life);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      live.delete(child);
      if (partial) this.line(partial, life);
      this.write(`--- ${new Date().toISOString()} life ${life} exited code=${code} signal=${signal}\n`);
      if (this.child === child) {
        this.child = null;
        this.markDown();
        if (!this.expectingExit) this.options.onUnexpectedExit?.(this, code, signal);
      }
    });

    const deadline = started + timeoutMs;
    for (;;) {
      if (this.child !== child) throw new Error(`${this.name} exited during start:\n${this.logTail()}`);
      if ((await httpGetStatus(this.port, '/api/health', 1_000)) === 200) break;
      if (Date.now() > deadline) {
        await this.kill();
        throw new Error(`${this.name} did not answer /api/health within ${timeoutMs} ms:\n${this.logTail()}`);
      }
      await sleep(100);
    }
    const ms = Date.now() - started;
    this.startupsMs.push(ms);
    const w = this.downWindows[this.downWindows.length - 1];
    if (w !== undefined && w.to === undefined) w.to = Date.now();
    this.state = 'up';
    return ms;
  }

  /** SIGKILL; resolves when the process is gone. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL', 0);
  }

  /** SIGTERM (graceful: releases the snowflake lease), SIGKILL after `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    await this.signal('SIGTERM', graceMs);
  }

  close(): void {
    this.log.end();
  }

  private async signal(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    const child = this.child;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    this.expectingExit = true;
    this.markDown();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    if (signal !== 'SIGKILL') {
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    } else {
      await exited;
    }
  }

  private markDown(): void {
    if (this.state !== 'down') {
      this.state = 'down';
      const w = this.downWindows[this.downWindows.length - 1];
      if (w === undefined || w.to !== undefined) this.downWindows.push({ from: Date.now(), to: undefined });
    }
  }

  private line(line: string, life: number): void {
    if (line.length === 0) return;
    this.write(line + '\n');
    this.tail.push(line.length > 2_000 ? line.slice(0, 2_000) + '…' : line);
    if (this.tail.length > 200) this.tail.shift();
    if (line.charCodeAt(0) !== 123 /* { */ || this.options.onLog === undefined) return;
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      const { level, event, t: _t, ...fields } = parsed;
      this.options.onLog({ node: this.name, life, at: Date.now(), level: String(level), event: String(event), fields });
    } catch {
      // not a log line
    }
  }

  private write(text: string): void {
    this.log.write(text);
  }
}
