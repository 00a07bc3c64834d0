/**
 * The bench's private databases: a throwaway MariaDB (test/support/mariadb.ts: own datadir, socket and free port on
 * 127.0.0.1, stopped by PID) and a throwaway redis-server (Debian's; installed with apt-get when missing, as the
 * MariaDB harness does; own temp dir, free port on 127.0.0.1, no persistence, stopped by PID).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { MariadbServer, freePort } from '../test/support/mariadb';

export { MariadbServer };

export type Log = (line: string) => void;

function findRedisServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'redis-server');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

/** redis-server from PATH, else `apt-get install -y redis-server` (root; the package's service start is suppressed). */
export function ensureRedis(log: Log): string {
  const found = findRedisServer();
  if (found) return found;
  log('redis-server not found: installing Debian\'s redis-server (apt-get update, apt-get install)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const policy = '/usr/sbin/policy-rc.d';
  const addedPolicy = !fs.existsSync(policy);
  try {
    // Debian's postinst would start a system-wide redis on 6379; forbid service starts for the install only.
    if (addedPolicy) fs.writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    execFileSync('apt-get', ['-q', 'update'], { stdio: ['ignore', 'inherit', 'inherit'], env, timeout: 300_000 });
    execFileSync('apt-get', ['-q', 'install', '-y', 'redis-server'], { stdio: ['ignore', 'inherit', 'inherit'], env, timeout: 600_000 });
  } finally {
    if (addedPolicy) fs.rmSync(policy, { force: true });
  }
  const installed = findRedisServer();
  if (!installed) throw new Error('redis-server was installed but is still not found');
  return installed;
}

export interface RedisServer {
  child: ChildProcess;
  port: number;
  url: string;
  version: string;
  stop(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, timeout: 1_000 });
    let data = '';
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      data += chunk.toString();
      if (data.includes('\r\n')) {
        socket.destroy();
        resolve(data.startsWith('+PONG'));
      }
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts redis-server on a free 127.0.0.1 port with `dir` as its working dir, no RDB snapshots and no AOF. */
export async function startRedis(dir: string, log: Log, track: (child: ChildProcess) => void): Promise<RedisServer> {
  const bin = ensureRedis(log);
  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).match(/v=(\S+)/)?.[1] ?? 'unknown';
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--protected-mode', 'yes', '--logfile', path.join(dir, 'redis.log')];
  const child = spawn(bin, args, { stdio: 'ignore' });
  track(child);
  const started = Date.now();
  while (Date.now() - started < 20_000) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    if (await ping(port)) {
      log(`redis-server ${version}: PID ${child.pid} ready on 127.0.0.1:${port} in ${Date.now() - started} ms (no persistence)`);
      return {
        child,
        port,
        url: `redis://127.0.0.1:${port}`,
        version,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
          log(`redis-server: stopped PID ${child.pid}`);
        },
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  let tail = '';
  try {
    tail = fs.readFileSync(path.join(dir, 'redis.log'), 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    // no log
  }
  throw new Error(`redis-server did not answer PING on 127.0.0.1:${port}. Log tail:\n${tail}`);
}

/** The alternatives' tables, in their own database on the bench's MariaDB. */
export const ALT_DDL = [
  'CREATE TABLE id_autoinc (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB',
  // Flickr's ticket server, as published: MyISAM, since REPLACE INTO on InnoDB deadlocks under concurrency.
  "CREATE TABLE tickets64 (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, stub CHAR(1) NOT NULL DEFAULT '', PRIMARY KEY (id), UNIQUE KEY stub (stub)) ENGINE=MyISAM",
];
