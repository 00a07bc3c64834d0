/**
 * A real, throwaway MariaDB for the integration tests, the bench and the chaos suite.
 *
 * `MariadbServer.create()` makes a fresh datadir under a temp dir, starts `mariadbd` as a child process on a free
 * port (never 3306) bound to 127.0.0.1 and its own unix socket, and waits until it accepts connections. `stop()` ends
 * exactly that PID (SIGTERM, then SIGKILL after a timeout); `destroy()` also removes the temp dir. A system-wide
 * MariaDB, running or not, is never touched: we use `--no-defaults`, our own datadir, socket and port.
 *
 * Stray servers are prevented three ways: teardown, a process 'exit' hook (SIGKILL, synchronous), and a tiny
 * detached watchdog process that kills the server if the process that started it dies without cleaning up
 * (e.g. vitest killed with SIGKILL).
 *
 * This module has no vitest imports: globalSetup (a plain Node context), test files and tools/ all use it.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import type { Log } from './apt';
import { stopChild } from './children';
import {
  type MariadbBinaries,
  createPasswordUser,
  ensureMariadb as ensureMariadbWith,
  installDatadir,
  logTail,
  queryAll,
  serverArgs,
  spawnMariadbd,
  tcpReachable,
} from './mariadbd';
import { freePort } from './ports';
import { sleep } from './wait';

export type { Log };
export { type MariadbBinaries, findMariadb } from './mariadbd';
const defaultLog: Log = (line) => process.stderr.write(`[mariadb] ${line}\n`);

/** Finds mariadbd, installing Debian's mariadb-server when it is missing (needs root and apt). */
export function ensureMariadb(log: Log = defaultLog): MariadbBinaries {
  return ensureMariadbWith(log);
}

export interface MariadbServerOptions {
  /** Parent for the temp dir (default: os.tmpdir()). */
  baseDir?: string;
  /** Fixed port; default: a free one. */
  port?: number;
  readyTimeoutMs?: number;
  stopTimeoutMs?: number;
  log?: Log;
  /** More mariadbd options (say `--default-time-zone=+05:00`). */
  extraArgs?: string[];
}

export class MariadbServer {
  readonly dir: string;
  readonly datadir: string;
  readonly socket: string;
  port: number;
  private readonly bin: MariadbBinaries;
  private readonly log: Log;
  private readonly readyTimeoutMs: number;
  private readonly stopTimeoutMs: number;
  private readonly extraArgs: string[];
  private child: ChildProcess | null = null;
  private paused = false;

  private constructor(bin: MariadbBinaries, dir: string, port: number, options: MariadbServerOptions) {
    this.bin = bin;
    this.dir = dir;
    this.datadir = path.join(dir, 'data');
    this.socket = path.join(dir, 'mariadb.sock');
    this.port = port;
    this.log = options.log ?? defaultLog;
    this.readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 20_000;
    this.extraArgs = options.extraArgs ?? [];
  }

  /** Fresh datadir, started and accepting connections. */
  static async create(options: MariadbServerOptions = {}): Promise<MariadbServer> {
    const bin = ensureMariadb(options.log ?? defaultLog);
    const dir = fs.mkdtempSync(path.join(options.baseDir ?? os.tmpdir(), 'leaf-mariadb-'));
    const server = new MariadbServer(bin, dir, options.port ?? (await freePort()), options);
    try {
      server.installDb();
      // A port that was free may be taken by the time mariadbd binds it: retry a few times with new ports.
      for (let attempt = 1; ; attempt++) {
        try {
          await server.start();
          break;
        } catch (error) {
          if (options.port !== undefined || attempt >= 3 || !/bind|address already in use/i.test(String(error)))
            throw error;
          server.port = await freePort();
        }
      }
      return server;
    } catch (error) {
      await server.destroy();
      throw error;
    }
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get isRunning(): boolean {
    return this.child !== null;
  }

  /** root over the unix socket; root has no password in our throwaway datadir. */
  get rootOptions(): mysql.ConnectionOptions {
    return { socketPath: this.socket, user: 'root', password: '', multipleStatements: false, connectTimeout: 2_000 };
  }

  private installDb(): void {
    installDatadir(this.bin, this.datadir, this.log);
  }

  private get errorLog(): string {
    return path.join(this.dir, 'mariadbd.err');
  }

  private tail(): string {
    return logTail(this.errorLog);
  }

  /** Starts mariadbd on the existing datadir (also after stop(): same port, same data). */
  async start(): Promise<void> {
    if (this.child !== null) return;
    const started = Date.now();
    const spawned = spawnMariadbd(
      this.bin.mariadbd,
      [
        ...serverArgs({
          dir: this.dir,
          datadir: this.datadir,
          socket: this.socket,
          port: this.port,
          bufferPool: '64M',
        }),
        '--skip-log-bin',
        '--max-connections=500',
        ...this.extraArgs,
      ],
      {
        errorLog: this.errorLog,
        dir: this.dir,
        // The watchdog kills the server only while its command line still names our datadir.
        marker: this.datadir,
        onGone: (gone) => {
          if (this.child === gone) this.child = null;
        },
      },
    );
    const child = spawned.child;
    this.child = child;
    if (child.pid !== undefined) {
      fs.writeFileSync(
        path.join(this.dir, 'owner.json'),
        JSON.stringify({ ownerPid: process.pid, serverPid: child.pid }),
      );
    }

    const deadline = Date.now() + this.readyTimeoutMs;
    let lastError: unknown = null;
    while (Date.now() < deadline) {
      const exitInfo = spawned.exitInfo();
      if (exitInfo !== null) {
        throw new Error(
          `mariadbd ${exitInfo} before accepting connections (port ${this.port}). Log tail:\n${this.tail()}`,
        );
      }
      try {
        const conn = await mysql.createConnection({ ...this.rootOptions, connectTimeout: 1_000 });
        await conn.end();
        await tcpReachable(this.port);
        this.log(`mariadbd pid ${child.pid} ready on 127.0.0.1:${this.port} in ${Date.now() - started} ms`);
        return;
      } catch (error) {
        lastError = error;
        await sleep(100);
      }
    }
    await this.stop();
    throw new Error(
      `mariadbd did not accept connections on 127.0.0.1:${this.port} within ${this.readyTimeoutMs} ms (last error: ${String(lastError)}). Log tail:\n${this.tail()}`,
    );
  }

  /** SIGSTOP: the server hangs (TCP connects are still accepted by the kernel, nothing answers). */
  pause(): void {
    if (this.child?.pid === undefined) throw new Error('mariadbd is not running');
    process.kill(this.child.pid, 'SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    if (this.child?.pid !== undefined) process.kill(this.child.pid, 'SIGCONT');
    this.paused = false;
  }

  /** Stops exactly our PID: SIGTERM, then SIGKILL after stopTimeoutMs. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child === null || child.pid === undefined) return;
    const pid = child.pid;
    if (this.paused) this.resume();
    await stopChild(child, this.stopTimeoutMs, {
      onEscalate: () => this.log(`mariadbd pid ${pid} ignored SIGTERM for ${this.stopTimeoutMs} ms: SIGKILL`),
    });
  }

  /** Synchronous last resort for process 'exit'. */
  killSync(): void {
    const child = this.child;
    if (child !== null && child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    try {
      fs.rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }

  /** Stops the server and removes its temp dir. */
  async destroy(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Runs statements as root over the socket. */
  async rootQuery(statements: Array<string | [string, unknown[]]>): Promise<unknown[]> {
    return queryAll(this.rootOptions, statements);
  }

  /**
   * Creates `database` and a password user on 127.0.0.1 allowed to create further databases (per-file databases);
   * returns mysql://user:pass@127.0.0.1:PORT/database.
   */
  async createAppUser(database = 'leaf_test', user = 'leaf'): Promise<string> {
    const { password } = await createPasswordUser(this.rootOptions, database, user);
    return `mysql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${this.port}/${database}`;
  }
}

/** The same URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * `CREATE DATABASE leaf_it_<random>` on the server behind `baseUrl` (whose user needs CREATE / DROP), so test files
 * never see each other's tables.
 */
export async function createDatabase(baseUrl: string, prefix = 'leaf_it'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const conn = await mysql.createConnection({ uri: baseUrl, connectTimeout: 5_000 });
  try {
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await conn.end();
  }
  return {
    name,
    url: withDatabase(baseUrl, name),
    async drop() {
      const c = await mysql.createConnection({ uri: baseUrl, connectTimeout: 5_000 });
      try {
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await c.end();
      }
    },
  };
}
