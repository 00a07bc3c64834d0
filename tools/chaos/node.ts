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
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { NotReadyError, cleanEnv, spawnServer, spawnWatchdog, stopChild, waitForHealth } from '../harness';

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
    const started = Date.now();
    this.life++;
    const life = this.life;
    this.state = 'starting';
    this.expectingExit = false;
    this.write(`--- ${new Date().toISOString()} start life ${life} on port ${this.port}\n`);
    const child = spawnServer({
      port: this.port,
      cwd: this.options.repoRoot,
      env: { ...cleanEnv(), NODE_ENV: 'production', CHAOS_RUN_ID: this.options.runId, ...this.options.env },
    });
    this.child = child;
    if (child.pid !== undefined)
      spawnWatchdog({ pid: child.pid, marker: `CHAOS_RUN_ID=${this.options.runId}`, where: 'environ' });
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
      if (partial) this.line(partial, life);
      this.write(`--- ${new Date().toISOString()} life ${life} exited code=${code} signal=${signal}\n`);
      if (this.child === child) {
        this.child = null;
        this.markDown();
        if (!this.expectingExit) this.options.onUnexpectedExit?.(this, code, signal);
      }
    });

    try {
      await waitForHealth(child, this.port, timeoutMs);
    } catch (error) {
      if (error instanceof NotReadyError && error.exited)
        throw new Error(`${this.name} exited during start:\n${this.logTail()}`, { cause: error });
      await this.kill();
      throw new Error(`${this.name} did not answer /api/health within ${timeoutMs} ms:\n${this.logTail()}`, {
        cause: error,
      });
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
    await stopChild(child, graceMs, { signal });
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
