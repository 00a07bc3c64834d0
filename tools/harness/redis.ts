/**
 * A throwaway redis-server (Debian's; installed with apt-get when missing): own temp dir, free port on 127.0.0.1,
 * no persistence (no RDB snapshots, no AOF), stopped by PID; SIGKILLed by the exit hook if still running.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type Log, ensurePackage, findExecutable } from './apt';
import { isRunning, stopChild, track } from './children';
import { freePort } from './ports';
import { sleep } from './wait';

/** redis-server from PATH, else `apt-get install -y redis-server` (root; the package's service start is suppressed). */
export function ensureRedis(log: Log): string {
  return ensurePackage('redis-server', () => findExecutable(['redis-server']), log);
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

/** Starts redis-server on a free 127.0.0.1 port with `dir` as its working dir; resolves once it answers PING. */
export async function startRedis(dir: string, log: Log, readyTimeoutMs = 20_000): Promise<RedisServer> {
  const bin = ensureRedis(log);
  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).match(/v=(\S+)/)?.[1] ?? 'unknown';
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--protected-mode',
    'yes',
    '--logfile',
    path.join(dir, 'redis.log'),
  ];
  const child = track(spawn(bin, args, { stdio: 'ignore' }));
  const started = Date.now();
  while (Date.now() - started < readyTimeoutMs) {
    if (!isRunning(child)) break;
    if (await ping(port)) {
      log(
        `redis-server ${version}: PID ${child.pid} ready on 127.0.0.1:${port} in ${Date.now() - started} ms (no persistence)`,
      );
      return {
        child,
        port,
        url: `redis://127.0.0.1:${port}`,
        version,
        async stop() {
          if (!isRunning(child)) return;
          await stopChild(child, 5_000);
          log(`redis-server: stopped PID ${child.pid}`);
        },
      };
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  let tail = '';
  try {
    tail = fs.readFileSync(path.join(dir, 'redis.log'), 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    // no log
  }
  throw new Error(
    `redis-server did not answer PING on 127.0.0.1:${port} within ${readyTimeoutMs} ms. Log tail:\n${tail}`,
  );
}
