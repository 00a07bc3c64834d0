/**
 * Building blocks shared by the single throwaway MariaDB (mariadb.ts) and the Galera cluster (galera.ts): finding
 * and installing the binaries, initialising a datadir, spawning one `mariadbd` child that cannot outlive us (exit
 * hook + watchdog), reading its error log, and running root statements.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { type Log, ensurePackage, findExecutable } from './apt';
import { onExit } from './exitHooks';
import { spawnWatchdog } from './watchdog';

export interface MariadbBinaries {
  mariadbd: string;
  installDb: string;
}

export function findMariadb(): MariadbBinaries | undefined {
  const mariadbd = findExecutable(['mariadbd', 'mysqld']);
  const installDb = findExecutable(['mariadb-install-db', 'mysql_install_db']);
  return mariadbd && installDb ? { mariadbd, installDb } : undefined;
}

/** Finds mariadbd, installing Debian's mariadb-server when it is missing (needs root and apt). */
export function ensureMariadb(log: Log): MariadbBinaries {
  return ensurePackage('mariadb-server', findMariadb, log);
}

export function tcpReachable(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, timeout: 1_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new Error(`timeout connecting to 127.0.0.1:${port}`));
    });
    socket.once('error', reject);
  });
}

/** `mariadb-install-db` into `datadir`: system tables, root over the socket without a password. */
export function installDatadir(bin: MariadbBinaries, datadir: string, log: Log): void {
  const started = Date.now();
  try {
    execFileSync(
      bin.installDb,
      [
        '--no-defaults',
        `--datadir=${datadir}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--user=root',
        '--skip-name-resolve',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
    );
  } catch (error) {
    const e = error as { stderr?: Buffer; stdout?: Buffer };
    throw new Error(
      `mariadb-install-db failed: ${String(error)}\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`,
      { cause: error },
    );
  }
  log(`datadir ${datadir} initialised in ${Date.now() - started} ms`);
}

/** The last `lines` lines of a server's error log, for error messages. */
export function logTail(file: string, lines = 25): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no server log)';
  }
}

/**
 * The options every throwaway server shares: no config file read (a system-wide my.cnf must not leak in), our
 * datadir, socket and port on 127.0.0.1 only, utf8mb4, and small, relaxed InnoDB settings fit for tests.
 */
export function serverArgs(o: {
  dir: string;
  datadir: string;
  socket: string;
  port: number;
  bufferPool: string;
}): string[] {
  return [
    '--no-defaults',
    '--user=root',
    `--datadir=${o.datadir}`,
    `--socket=${o.socket}`,
    `--pid-file=${path.join(o.dir, 'mariadbd.pid')}`,
    `--port=${o.port}`,
    '--bind-address=127.0.0.1',
    '--character-set-server=utf8mb4',
    '--collation-server=utf8mb4_unicode_ci',
    '--skip-name-resolve',
    `--innodb-buffer-pool-size=${o.bufferPool}`,
    '--innodb-log-file-size=16M',
    '--innodb-flush-log-at-trx-commit=2',
  ];
}

export interface SpawnedMariadbd {
  child: ChildProcess;
  /** Why it ended ("exited with code 1 signal null"), or null while it runs. */
  exitInfo(): string | null;
}

/**
 * Spawns `mariadbd args` with stdout/stderr appended to `errorLog`. The child is SIGKILLed on process 'exit', and a
 * detached watchdog stops it (and removes `dir`) should we die without cleaning up; `marker` is a string only its
 * command line carries (its datadir). `onGone` runs once when it exits or fails to spawn.
 */
export function spawnMariadbd(
  mariadbd: string,
  args: string[],
  {
    errorLog,
    dir,
    marker,
    onGone,
  }: { errorLog: string; dir: string; marker: string; onGone: (child: ChildProcess) => void },
): SpawnedMariadbd {
  const err = fs.openSync(errorLog, 'a');
  const child = spawn(mariadbd, args, { stdio: ['ignore', err, err] });
  fs.closeSync(err);
  const unregister = onExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let exitInfo: string | null = null;
  const gone = (info: string) => {
    if (exitInfo !== null) return;
    exitInfo = info;
    unregister();
    onGone(child);
  };
  child.once('exit', (code, signal) => gone(`exited with code ${code} signal ${signal}`));
  child.once('error', (error) => gone(`failed to spawn: ${error.message}`));
  if (child.pid !== undefined)
    spawnWatchdog({ pid: child.pid, marker, where: 'cmdline', graceMs: 10_000, removeDir: dir });
  return { child, exitInfo: () => exitInfo };
}

/** Runs statements on one fresh connection; returns each statement's rows. */
export async function queryAll(
  options: mysql.ConnectionOptions,
  statements: Array<string | [string, unknown[]]>,
): Promise<unknown[]> {
  const conn = await mysql.createConnection(options);
  try {
    const out: unknown[] = [];
    for (const s of statements) {
      const [rows] = typeof s === 'string' ? await conn.query(s) : await conn.query(s[0], s[1]);
      out.push(rows);
    }
    return out;
  } finally {
    await conn.end();
  }
}

/**
 * Creates `database` and a password user on 127.0.0.1 allowed to create further databases, through root's
 * `rootOptions`; returns the user and password.
 */
export async function createPasswordUser(
  rootOptions: mysql.ConnectionOptions,
  database: string,
  user: string,
): Promise<{ user: string; password: string }> {
  const password = randomBytes(12).toString('hex');
  await queryAll(rootOptions, [
    `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    [`CREATE USER IF NOT EXISTS ?@'127.0.0.1' IDENTIFIED BY ?`, [user, password]],
    [`ALTER USER ?@'127.0.0.1' IDENTIFIED BY ?`, [user, password]],
    [`GRANT ALL PRIVILEGES ON *.* TO ?@'127.0.0.1'`, [user]],
  ]);
  return { user, password };
}
