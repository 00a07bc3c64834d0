/**
 * A throwaway HAProxy (Debian's; installed with apt-get when missing) running the project's recipe
 * (ops/haproxy/haproxy.cfg) with its addresses moved to 127.0.0.1: the frontend and the stats page on free ports,
 * one `server` line per node given. Foreground (-db), stopped by PID; SIGKILLed by the exit hook if still running.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { type Log, ensurePackage, findExecutable } from './apt';
import { isRunning, stopChild, track } from './children';
import { REPO_ROOT } from './node';
import { freePort } from './ports';
import { sleep } from './wait';

export const HAPROXY_RECIPE = path.join(REPO_ROOT, 'ops', 'haproxy', 'haproxy.cfg');

export function ensureHaproxy(log: Log): string {
  return ensurePackage('haproxy', () => findExecutable(['haproxy']), log);
}

/** `haproxy -c -f file`: whether it is valid, and everything it printed (warnings included). */
export function checkHaproxyConfig(file: string, log: Log): { valid: boolean; output: string } {
  const bin = ensureHaproxy(log);
  try {
    const output = execFileSync(bin, ['-c', '-f', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { valid: true, output };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { valid: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

export interface LoopbackPorts {
  frontend: number;
  stats: number;
  /** One server line per port, named leaf1…leafN, in this order. */
  servers: number[];
  /** Extra lines for the backend (a test's own headers); none in the recipe. */
  backendLines?: string[];
}

/**
 * The recipe with its addresses on 127.0.0.1: the `bind :8080` of the frontend, the stats `bind`, and each backend's
 * `server` lines replaced by one per port (keeping the recipe's options). Everything else stays as written.
 */
export function loopbackConfig(recipe: string, ports: LoopbackPorts): string {
  const lines = recipe.split('\n');
  if (!lines.some((l) => /^\s+server\s/.test(l))) throw new Error('the HAProxy recipe has no server line');
  const out: string[] = [];
  let section = '';
  let serversWritten = false;
  for (const line of lines) {
    if (/^\S/.test(line)) {
      section = line.trim();
      serversWritten = false;
    }
    if (/^\s+server\s/.test(line)) {
      const indent = /^(\s+)/.exec(line)?.[1] ?? '    ';
      if (!serversWritten) {
        for (const l of ports.backendLines ?? []) out.push(`${indent}${l}`);
        ports.servers.forEach((port, k) => out.push(`${indent}server leaf${k + 1} 127.0.0.1:${port}`));
        serversWritten = true;
      }
      continue;
    }
    if (/^\s+bind\s/.test(line)) {
      const indent = /^(\s+)/.exec(line)?.[1] ?? '    ';
      out.push(`${indent}bind 127.0.0.1:${section === 'frontend stats' ? ports.stats : ports.frontend}`);
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}

export interface ServerState {
  /** leaf1…leafN */
  name: string;
  /** UP, DOWN, MAINT, "UP 1/2", "DOWN 1/2"… */
  status: string;
}

export interface BackendStats {
  servers: ServerState[];
  /** Requests HAProxy sent again (to the same or another server) and sent to another server. */
  retries: number;
  redispatches: number;
}

export interface HaproxyServer {
  child: ChildProcess;
  port: number;
  statsPort: number;
  version: string;
  /** The leaf_nodes backend as HAProxy's stats page (CSV) shows it. */
  stats(): Promise<BackendStats>;
  stop(): Promise<void>;
}

function get(port: number, urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false, timeout: 2_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: 0, body }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, body: '' }));
  });
}

function parseStats(csv: string): BackendStats {
  const [header = '', ...rows] = csv.trim().split('\n');
  const cols = header.replace(/^# /, '').split(',');
  const at = (row: string[], name: string) => row[cols.indexOf(name)] ?? '';
  const all = rows.map((r) => r.split(','));
  const backend = all.filter((r) => at(r, 'pxname') === 'leaf_nodes');
  // Retries and redispatches of both backends (the snowflake routes have theirs).
  const totals = all.filter((r) => at(r, 'svname') === 'BACKEND' && at(r, 'pxname').startsWith('leaf_'));
  const sum = (col: string) => totals.reduce((n, r) => n + Number(at(r, col) || 0), 0);
  return {
    servers: backend
      .filter((r) => !['BACKEND', 'FRONTEND'].includes(at(r, 'svname')))
      .map((r) => ({ name: at(r, 'svname'), status: at(r, 'status') })),
    retries: sum('wretr'),
    redispatches: sum('wredis'),
  };
}

/** Starts HAProxy on `config` (written into `dir`); resolves once its stats page answers. */
export async function startHaproxy(options: {
  config: string;
  port: number;
  statsPort: number;
  dir: string;
  log: Log;
}): Promise<HaproxyServer> {
  const { config, port, statsPort, dir, log } = options;
  const bin = ensureHaproxy(log);
  const version = /version (\S+)/.exec(execFileSync(bin, ['-v'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, config);
  const check = checkHaproxyConfig(file, log);
  if (!check.valid) throw new Error(`haproxy -c refused ${file}:\n${check.output}`);
  let output = '';
  const child = track(spawn(bin, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] }));
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
    fs.appendFileSync(path.join(dir, 'haproxy.log'), chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const started = Date.now();
  while (Date.now() - started < 15_000 && isRunning(child)) {
    if ((await get(statsPort, '/stats;csv')).status === 200) {
      log(
        `haproxy ${version}: PID ${child.pid} on 127.0.0.1:${port} (stats :${statsPort}) ready in ${Date.now() - started} ms`,
      );
      return {
        child,
        port,
        statsPort,
        version,
        async stats() {
          const r = await get(statsPort, '/stats;csv');
          if (r.status !== 200) throw new Error(`haproxy stats answered ${r.status}`);
          return parseStats(r.body);
        },
        async stop() {
          if (!isRunning(child)) return;
          await stopChild(child, 5_000);
          log(`haproxy: stopped PID ${child.pid}`);
        },
      };
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`haproxy did not serve its stats page on 127.0.0.1:${statsPort} within 15 s:\n${output}`);
}

/** The recipe on loopback, on free ports, in front of `servers`. */
export async function startHaproxyRecipe(options: {
  servers: number[];
  dir: string;
  log: Log;
  backendLines?: string[];
}): Promise<HaproxyServer> {
  const port = await freePort();
  const statsPort = await freePort();
  const config = loopbackConfig(fs.readFileSync(HAPROXY_RECIPE, 'utf8'), {
    frontend: port,
    stats: statsPort,
    servers: options.servers,
    backendLines: options.backendLines,
  });
  return startHaproxy({ config, port, statsPort, dir: options.dir, log: options.log });
}

/** Polls the stats page until every server named is in `status` (UP, DOWN); false after `ms`. */
export async function waitForServers(
  haproxy: HaproxyServer,
  names: string[],
  status: 'UP' | 'DOWN',
  ms: number,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { servers } = await haproxy.stats();
    if (names.every((n) => servers.find((s) => s.name === n)?.status === status)) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}
