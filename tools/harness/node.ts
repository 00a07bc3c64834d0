/**
 * A server process (`node [flags] --import tsx server.ts`, or another script answering /api/health) on 127.0.0.1:
 * spawned with the environment the caller gives, tracked for the exit hook, and polled on GET /api/health (each
 * probe bounded) until it answers 200, it exits, or the deadline passes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { isRunning, stopChild, track } from './children';
import { listensOn } from './listener';
import { freePort } from './ports';
import { sleep } from './wait';

export const REPO_ROOT = path.resolve(__dirname, '../..');

/**
 * The parent's environment without anything that would change a server's behaviour behind the caller's back: no
 * LEAF_* setting, DATABASE_URL, PORT or HOST of the shell, nothing of vitest's.
 */
export function cleanEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v === undefined ||
      k.startsWith('LEAF_') ||
      k === 'DATABASE_URL' ||
      k === 'PORT' ||
      k === 'HOST' ||
      k.startsWith('VITEST')
    )
      continue;
    out[k] = v;
  }
  return out;
}

/** GET `path` on 127.0.0.1:`port` on a fresh connection; the status code, 0 on a connection error or timeout. */
export function httpGetStatus(port: number, urlPath: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

export interface SpawnServerOptions {
  port: number;
  /** The whole environment of the process (PORT and HOST are set from `port` and 127.0.0.1 on top). */
  env: NodeJS.ProcessEnv;
  /** Relative to `cwd`; default server.ts. */
  script?: string;
  /** Node flags before `--import tsx`. */
  nodeFlags?: string[];
  cwd?: string;
  /** Every chunk the process writes. */
  onOutput?: (text: string, stream: 'stdout' | 'stderr') => void;
}

export function spawnServer({
  port,
  env,
  script = 'server.ts',
  nodeFlags = [],
  cwd = REPO_ROOT,
  onOutput,
}: SpawnServerOptions): ChildProcess {
  const child = track(
    spawn(process.execPath, [...nodeFlags, '--import', 'tsx', script], {
      cwd,
      env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  if (onOutput !== undefined) {
    child.stdout?.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8'), 'stdout'));
    child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8'), 'stderr'));
  }
  return child;
}

/** The process exited before it answered, or did not answer 200 in time. */
export class NotReadyError extends Error {
  constructor(
    message: string,
    readonly exited: boolean,
  ) {
    super(message);
  }
}

/**
 * Polls GET /api/health every `everyMs` (each probe at most 1 s) until it answers 200; resolves with the ms waited.
 * Rejects with NotReadyError when the process exits first or after `timeoutMs`; the process is left as it is.
 */
export async function waitForHealth(
  child: ChildProcess,
  port: number,
  timeoutMs: number,
  everyMs = 100,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (!isRunning(child))
      throw new NotReadyError(`exited (${child.exitCode ?? child.signalCode}) before /api/health answered`, true);
    // A 200 from a process that took the port before ours could bind it is not ours: ours then exits, refused.
    if (
      (await httpGetStatus(port, '/api/health', 1_000)) === 200 &&
      (child.pid === undefined || listensOn(child.pid, port))
    )
      return Date.now() - started;
    if (!isRunning(child))
      throw new NotReadyError(`exited (${child.exitCode ?? child.signalCode}) before /api/health answered`, true);
    if (Date.now() - started > timeoutMs)
      throw new NotReadyError(`did not answer /api/health with 200 within ${timeoutMs} ms`, false);
    await sleep(everyMs);
  }
}

export interface NodeServer {
  child: ChildProcess;
  port: number;
  url: string;
  /** ms from spawn until /api/health answered 200. */
  readyMs: number;
  /** SIGTERM, SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Attempts when the free port picked was taken by someone else before the server bound it. */
const PORT_ATTEMPTS = 3;

/**
 * spawnServer + waitForHealth on a free port (unless `port` is given). When it does not come up, the process is
 * SIGKILLed and the error carries its output so far. A port picked here is free only a moment before the server
 * binds it: on a shared machine another process can take it in between, so a server that exits with EADDRINUSE is
 * started again on another free port (up to PORT_ATTEMPTS times).
 */
export async function startNodeServer(
  options: Omit<SpawnServerOptions, 'port'> & { port?: number; timeoutMs?: number },
): Promise<NodeServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, options.port ?? (await freePort()));
    } catch (error) {
      const raced = options.port === undefined && error instanceof PortTakenError && attempt < PORT_ATTEMPTS;
      if (!raced) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startOnce(
  options: Omit<SpawnServerOptions, 'port'> & { timeoutMs?: number },
  port: number,
): Promise<NodeServer> {
  let out = '';
  const child = spawnServer({
    ...options,
    port,
    onOutput: (text, stream) => {
      out = (out + text).slice(-20_000);
      options.onOutput?.(text, stream);
    },
  });
  try {
    const readyMs = await waitForHealth(child, port, options.timeoutMs ?? 30_000);
    return {
      child,
      port,
      url: `http://127.0.0.1:${port}`,
      readyMs,
      stop: (graceMs = 5_000) => stopChild(child, graceMs),
    };
  } catch (error) {
    await stopChild(child, 0, { signal: 'SIGKILL' });
    const message = `${options.script ?? 'server.ts'} on port ${port} ${(error as Error).message}:\n${out}`;
    const taken =
      error instanceof NotReadyError && error.exited && /EADDRINUSE|is already in use by another process/.test(out);
    throw taken ? new PortTakenError(message, { cause: error }) : new Error(message, { cause: error });
  }
}

/** A server started to see whether it comes up: 'up' once healthy, else its exit code; its output so far. */
export interface LaunchedServer {
  child: ChildProcess;
  port: number;
  outcome: Promise<'up' | number>;
  out(): string;
}

/** Spawns a server on a free port for a test of its start (a refusal's exit code and line, or that it serves). */
export async function launchServer(env: NodeJS.ProcessEnv, timeoutMs = 90_000): Promise<LaunchedServer> {
  const port = await freePort();
  let out = '';
  const child = spawnServer({ port, env, onOutput: (t) => (out += t) });
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  const outcome = Promise.race([
    waitForHealth(child, port, timeoutMs).then(
      () => 'up' as const,
      () => exited,
    ),
    exited,
  ]);
  return { child, port, outcome, out: () => out };
}
