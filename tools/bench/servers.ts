/**
 * The HTTP servers under test, each its own child process on a free 127.0.0.1 port, started with the flags of
 * `npm start` and waited on through /api/health (tools/harness/node.ts); stopped by PID.
 */
import fs from 'node:fs';
import path from 'node:path';
import serverNodeFlags from '../../scripts/serverNodeFlags.cjs';
import { type ChildProcess } from 'node:child_process';
import { NotReadyError, freePort, spawnServer, stopChild, waitForHealth } from '../harness';
import { ADMIN_TOKEN, READY_TIMEOUT_MS, ROOT, progress, sleep, tmpDir } from './config';
import { segmentLoads } from './metrics';

export interface Server {
  name: string;
  child: ChildProcess;
  port: number;
  base: string;
  /** Node processes answering on the port (LEAF_WORKERS). */
  workers: number;
  /** Database processes whose CPU belongs to this server's rows (mariadbd, redis-server). */
  dbPids: number[];
  /** Last lines of the server's stdout/stderr, shown when something goes wrong. */
  tail: string[];
  /** stderr lines (the servers log at warn, so any line is worth a look). */
  logLines: number;
  /** A leaf-ts server's SQLite file (a second node may share it). */
  sqliteFile?: string;
}

/**
 * A server on a free port. The port is free only a moment before the server binds it; when another process took it
 * in between (EADDRINUSE in the output), the server is started again on another one, up to 3 times.
 */
export async function startServer(
  name: string,
  script: string,
  extraEnv: Record<string, string>,
  dbPids: number[] = [],
): Promise<Server> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOn(await freePort(), name, script, extraEnv, dbPids);
    } catch (error) {
      if (!(error instanceof Error && error.message.includes('EADDRINUSE') && attempt < 3)) throw error;
      progress(`${name}: its port was taken before it bound it; starting it again on another`);
    }
  }
}

async function startServerOn(
  port: number,
  name: string,
  script: string,
  extraEnv: Record<string, string>,
  dbPids: number[],
): Promise<Server> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', LEAF_LOG_LEVEL: 'warn' };
  // The shell's own settings must not leak in: a DATABASE_URL would win over the temp SQLite file, a token would
  // make every request a 401, LEAF_WORKERS>1 would put the engine in cluster workers a row does not expect, and
  // the bench route or snowflake switches would change what a row measures. Each row sets what it needs.
  for (const k of [
    'DATABASE_URL',
    'LEAF_ID_TOKEN',
    'LEAF_ADMIN_TOKEN',
    'LEAF_BENCH_ROUTES',
    'LEAF_SNOWFLAKE',
    'LEAF_NODE_ID',
    'LEAF_DATA_DIR',
    'LEAF_WORKER_LEASE_MS',
  ])
    delete env[k];
  env.LEAF_WORKERS = '1';
  Object.assign(env, extraEnv);
  // Every server, bare included, runs with the flags `npm start` uses.
  const child = spawnServer({ port, env, script, nodeFlags: serverNodeFlags, cwd: ROOT });
  const server: Server = {
    name,
    child,
    port,
    base: `http://127.0.0.1:${port}`,
    workers: Number(env.LEAF_WORKERS),
    dbPids,
    tail: [],
    logLines: 0,
  };
  const keep = (isErr: boolean) => (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() === '') continue;
      // Next prints its config-load notice on stdout; anything on stderr is a log line at warn or above.
      if (isErr) server.logLines++;
      server.tail.push(line);
      if (server.tail.length > 40) server.tail.shift();
    }
  };
  child.stdout?.on('data', keep(false));
  child.stderr?.on('data', keep(true));
  progress(`${name}: started PID ${child.pid} (${script}) on 127.0.0.1:${port}; polling /api/health`);
  try {
    const ms = await waitForHealth(child, port, READY_TIMEOUT_MS);
    progress(`${name}: ready after ${ms} ms`);
    return server;
  } catch (error) {
    await stopServer(server);
    const why = error instanceof NotReadyError ? error.message : String(error);
    throw new Error(`${name} ${why}. Last output:\n${server.tail.join('\n')}`, { cause: error });
  }
}

export async function stopServer(server: Server): Promise<void> {
  await stopChild(server.child, 5_000);
  progress(`${server.name}: stopped PID ${server.child.pid}`);
}

/** A leaf-ts server (server.ts, fast lane on) on a fresh SQLite file of its own, unless `env` gives a DATABASE_URL. */
export async function leafServer(name: string, env: Record<string, string>, dbPids: number[] = []): Promise<Server> {
  const dir = fs.mkdtempSync(path.join(tmpDir, 'db-'));
  const sqliteFile = env.LEAF_SQLITE_FILE ?? path.join(dir, 'leaf.db');
  const server = await startServer(
    name,
    'server.ts',
    { LEAF_SQLITE_FILE: sqliteFile, LEAF_DATA_DIR: dir, LEAF_ADMIN_TOKEN: ADMIN_TOKEN, LEAF_FAST_LANE: 'on', ...env },
    dbPids,
  );
  return { ...server, sqliteFile };
}

/** Waits until every cluster worker answers /api/metrics (the primary hands connections to listening workers only). */
export async function waitForWorkers(server: Server): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      await segmentLoads(server);
      progress(`${server.name}: all ${server.workers} workers answer (${Date.now() - started} ms)`);
      return;
    } catch (error) {
      if (Date.now() - started > READY_TIMEOUT_MS) throw error;
      await sleep(250);
    }
  }
}
