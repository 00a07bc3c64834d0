/**
 * A real, throwaway single PostgreSQL server for the integration tests, the bench and the chaos suite.
 *
 * `PostgresServer.create()` runs Debian's PostgreSQL 15 `initdb` into a fresh data dir under a temp dir (as the
 * `postgres` OS user when we are root: PostgreSQL refuses to run as root), then starts `postgres` as our child on a
 * free port (never 5432) bound to 127.0.0.1, with its own unix socket dir, and waits until it answers. The system's
 * own PostgreSQL, running or not, is never touched. Installs `postgresql-15` from Debian when it is missing.
 *
 * Durability as the MariaDB harness's (innodb_flush_log_at_trx_commit=2): every commit's WAL is written to the OS
 * before the commit answers (synchronous_commit on), not fsynced (fsync off) — so a kill -9 of the server, or a
 * restart, loses nothing, which the chaos suite's database restarts rely on; only an OS crash could.
 *
 * Every process of the server (postmaster and backends) carries the server's marker in its environment
 * (markedProcesses.ts): the exit hook, kill() and a detached watchdog find exactly ours, each by PID.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Log, aptInstall } from './apt';
import { track } from './children';
import { onExit } from './exitHooks';
import { logTail } from './mariadbd';
import { killMarked, killPids, markedEnv, markedPids, spawnMarkedWatchdog } from './markedProcesses';
import { distinctFreePorts } from './patroniSetup';
import type { OsUser } from './patroniNode';
import { PG_BIN_DIR, psql } from './psql';
import { sleep } from './wait';

const defaultLog: Log = (line) => process.stderr.write(`[postgres] ${line}\n`);

/** Whether PostgreSQL 15's server binaries are installed. */
export function postgresAvailable(): boolean {
  return fs.existsSync(path.join(PG_BIN_DIR, 'postgres'));
}

/** PostgreSQL 15's binaries, installed from Debian when missing; the OS user to run them as (postgres when we are root). */
export function ensurePostgres(log: Log = defaultLog): OsUser | undefined {
  if (!postgresAvailable()) {
    log('postgresql-15 not installed: installing it from Debian packages (apt-get update, apt-get install)…');
    aptInstall(['postgresql-15'], log);
    if (!postgresAvailable()) throw new Error(`postgresql-15 installed but ${PG_BIN_DIR}/postgres is still missing`);
  }
  if (process.getuid?.() !== 0) return undefined;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (line === undefined) throw new Error('no postgres user in /etc/passwd although postgresql-15 is installed');
  return { uid: Number(uid), gid: Number(gid) };
}

export interface PostgresServerOptions {
  /** Parent for the temp dir (default: os.tmpdir()); the postgres user must be able to reach it when we are root. */
  baseDir?: string;
  port?: number;
  /** Extra server parameters (`-c name=value`). */
  parameters?: Record<string, string | number>;
  readyTimeoutMs?: number;
  log?: Log;
}

export class PostgresServer {
  readonly dataDir: string;
  readonly socketDir: string;
  readonly marker: string;
  private child: ChildProcess | null = null;
  private exitInfo: string | null = null;
  private unhook: (() => void) | null = null;

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly owner: OsUser | undefined,
    private readonly options: PostgresServerOptions,
    private readonly log: Log,
  ) {
    this.dataDir = path.join(dir, 'data');
    this.socketDir = path.join(dir, 'socket');
    this.marker = `leaf-postgres-${path.basename(dir)}`;
  }

  /** Fresh data dir, started and accepting connections. */
  static async create(options: PostgresServerOptions = {}): Promise<PostgresServer> {
    const log = options.log ?? defaultLog;
    const owner = ensurePostgres(log);
    const dir = fs.mkdtempSync(path.join(options.baseDir ?? os.tmpdir(), 'leaf-postgres-'));
    const [port] = options.port === undefined ? await distinctFreePorts(1) : [options.port];
    if (port === undefined) throw new Error('no free port for PostgreSQL');
    const server = new PostgresServer(dir, port, owner, options, log);
    spawnMarkedWatchdog(server.marker, [dir]);
    try {
      server.initdb();
      await server.start();
      return server;
    } catch (error) {
      await server.destroy();
      throw error;
    }
  }

  /**
   * A hot standby of `primary` (pg_basebackup -R: streaming from it, asynchronously), on a port and data dir of its
   * own, started: pg_is_in_recovery() is true there and every write is refused with 25006.
   */
  static async standbyOf(
    primary: PostgresServer,
    options: Omit<PostgresServerOptions, 'port'> = {},
  ): Promise<PostgresServer> {
    const log = options.log ?? defaultLog;
    const owner = ensurePostgres(log);
    const dir = fs.mkdtempSync(path.join(options.baseDir ?? os.tmpdir(), 'leaf-postgres-'));
    const [port] = await distinctFreePorts(1);
    if (port === undefined) throw new Error('no free port for the PostgreSQL standby');
    const server = new PostgresServer(dir, port, owner, options, log);
    spawnMarkedWatchdog(server.marker, [dir]);
    try {
      server.makeDirs();
      execFileSync(
        path.join(PG_BIN_DIR, 'pg_basebackup'),
        [
          '-D',
          server.dataDir,
          '-R',
          '-X',
          'stream',
          '--checkpoint=fast',
          '-h',
          primary.socketDir,
          '-p',
          String(primary.port),
          '-U',
          'postgres',
        ],
        {
          uid: owner?.uid,
          gid: owner?.gid,
          cwd: dir,
          env: markedEnv(server.marker, { LANG: 'C.UTF-8' }),
          stdio: 'pipe',
          timeout: 120_000,
        },
      );
      await server.start();
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

  /** The superuser over the unix socket (trust), as a libpq conninfo. */
  superuserConninfo(database = 'postgres'): string {
    return `host=${this.socketDir} port=${this.port} user=postgres dbname=${database}`;
  }

  private get serverLog(): string {
    return path.join(this.dir, 'postgres.log');
  }

  private makeDirs(): void {
    fs.mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.socketDir, { recursive: true, mode: 0o755 });
    if (this.owner !== undefined)
      for (const d of [this.dir, this.dataDir, this.socketDir]) fs.chownSync(d, this.owner.uid, this.owner.gid);
  }

  private initdb(): void {
    this.makeDirs();
    execFileSync(
      path.join(PG_BIN_DIR, 'initdb'),
      [
        '-D',
        this.dataDir,
        '-U',
        'postgres',
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '-E',
        'UTF8',
        '--locale=C.UTF-8',
        '--no-sync',
      ],
      {
        uid: this.owner?.uid,
        gid: this.owner?.gid,
        cwd: this.dir,
        env: markedEnv(this.marker, { LANG: 'C.UTF-8' }),
        stdio: 'pipe',
        timeout: 120_000,
      },
    );
  }

  /** Starts postgres on the existing data dir (also after stop() or kill(): same port, same data). */
  async start(): Promise<void> {
    if (this.child !== null) return;
    const started = Date.now();
    const parameters: Record<string, string | number> = {
      listen_addresses: '127.0.0.1',
      max_connections: 300,
      shared_buffers: '64MB',
      fsync: 'off',
      full_page_writes: 'off',
      unix_socket_directories: this.socketDir,
      ...this.options.parameters,
    };
    const args = [
      '-D',
      this.dataDir,
      '-p',
      String(this.port),
      ...Object.entries(parameters).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ];
    const out = fs.openSync(this.serverLog, 'a');
    const child = spawn(path.join(PG_BIN_DIR, 'postgres'), args, {
      uid: this.owner?.uid,
      gid: this.owner?.gid,
      cwd: this.dir,
      env: markedEnv(this.marker, { LANG: 'C.UTF-8' }),
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    track(child);
    this.child = child;
    this.exitInfo = null;
    // Backends outlive a SIGKILLed postmaster for a moment: the exit hook kills every marked process.
    this.unhook ??= onExit(() => killPids(markedPids(this.marker)));
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      this.exitInfo = `exited with code ${code} signal ${signal}`;
    });
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 60_000);
    let last: unknown;
    while (Date.now() < deadline) {
      if (this.child === null)
        throw new Error(
          `postgres ${this.exitInfo} before accepting connections (port ${this.port}). Log tail:\n${logTail(this.serverLog)}`,
        );
      try {
        await psql(this.superuserConninfo(), 'SELECT 1', { timeoutMs: 3_000, connectTimeoutS: 1 });
        this.log(`postgres pid ${child.pid} ready on 127.0.0.1:${this.port} in ${Date.now() - started} ms`);
        return;
      } catch (error) {
        last = error;
        await sleep(100);
      }
    }
    await this.kill();
    throw new Error(
      `postgres did not answer on 127.0.0.1:${this.port} (last error: ${String(last)}). Log tail:\n${logTail(this.serverLog)}`,
    );
  }

  /** SIGSTOP to the postmaster and every backend: the server hangs (TCP connects are still accepted by the kernel, nothing answers). */
  pause(): void {
    for (const pid of markedPids(this.marker)) signalPid(pid, 'SIGSTOP');
  }

  resume(): void {
    for (const pid of markedPids(this.marker)) signalPid(pid, 'SIGCONT');
  }

  /** A fast shutdown (SIGINT: sessions ended, a clean checkpoint), SIGKILL after `graceMs`. */
  async stop(graceMs = 20_000): Promise<void> {
    const child = this.child;
    if (child === null) return;
    this.resume(); // a frozen server would never shut down
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGINT');
    const timer = setTimeout(() => void this.kill(), graceMs);
    await exited;
    clearTimeout(timer);
    await killMarked(this.marker, 5_000); // backends still finishing
  }

  /** The machine dies: SIGKILL to the postmaster and every backend (each by PID). A start() then runs crash recovery. */
  async kill(): Promise<void> {
    const child = this.child;
    const exited =
      child === null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await killMarked(this.marker, 10_000);
    await exited;
  }

  /** Stops the server and removes its temp dir. */
  async destroy(): Promise<void> {
    await this.kill();
    this.unhook?.();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * A password user on 127.0.0.1 allowed to create databases (the tests' per-file databases), owning `database`;
   * returns postgres://user:pass@127.0.0.1:PORT/database.
   */
  async createAppUser(database = 'leaf_test', user = 'leaf'): Promise<string> {
    const password = randomBytes(12).toString('hex');
    await psql(this.superuserConninfo(), [
      `CREATE ROLE ${user} LOGIN CREATEDB PASSWORD '${password}'`,
      `CREATE DATABASE ${database} OWNER ${user}`,
    ]);
    return `postgres://${user}:${password}@127.0.0.1:${this.port}/${database}`;
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone meanwhile
  }
}

/** The same URL pointing at another database. */
export function withPgDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Runs `statements` one by one on a fresh connection to `url` (bounded), and closes it. */
export async function pgQuery(url: string, statements: string[]): Promise<pg.QueryResult[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, statement_timeout: 30_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    const results: pg.QueryResult[] = [];
    for (const s of statements) results.push(await client.query(s));
    return results;
  } finally {
    await client.end().catch(() => {});
  }
}

/** `CREATE DATABASE leaf_it_<random>` on the server behind `baseUrl` (whose user needs CREATEDB): one per test file. */
export async function createPgDatabase(
  baseUrl: string,
  prefix = 'leaf_it',
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await pgQuery(baseUrl, [`CREATE DATABASE ${name}`]);
  return {
    name,
    url: withPgDatabase(baseUrl, name),
    // FORCE: a process of the test that was killed may leave a session behind for a moment.
    drop: async () => void (await pgQuery(baseUrl, [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])),
  };
}
