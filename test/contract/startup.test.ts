/**
 * A start that cannot go ahead stops with one plain line naming what to change and exit 78 (EX_CONFIG), and leaves
 * nothing behind: no node row, no snowflake worker lease. Bad variables (server.ts directly), and an address already
 * taken — by another program, or by a second `npm start` in the same folder (through the launcher, as a user starts).
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REPO_ROOT,
  cleanEnv,
  freePort,
  groupPids,
  signalGroup,
  spawnGroup,
  waitForHealth,
  waitGroupGone,
} from '../../tools/harness';
import { takeIds } from '../support/clientIds';
import { type TempDir, tempDir } from '../support/context';

const EX_CONFIG = 78;

function start(env: Record<string, string>): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('start-up configuration', () => {
  it.each([
    [{ PORT: 'abc' }, 'leaf-ts: cannot start: PORT must be a port number from 0 to 65535 (got "abc")'],
    [{ LEAF_LOG_LEVEL: 'loud' }, 'leaf-ts: cannot start: LEAF_LOG_LEVEL must be debug, info, warn, error (got "loud")'],
    [
      { LEAF_ADMIN_TOKEN: 'short' },
      'leaf-ts: cannot start: LEAF_ADMIN_TOKEN must be at least 16 characters (it guards deletes) (got 5 characters)',
    ],
  ])(
    '%j exits 78 (EX_CONFIG) with one line',
    (env, line) => {
      const r = start(env);
      expect(r.status).toBe(EX_CONFIG);
      expect(r.stderr.trim().split('\n')).toEqual([line]);
      expect(r.stdout).toBe('');
    },
    40_000,
  );
});

describe('what a first build through the launcher prints', () => {
  // scripts/test.sh builds the app as a first `npm start` does (scripts/start.mjs --build-only) into .tmp/build.log.
  const log = path.join(REPO_ROOT, '.tmp', 'build.log');

  it.skipIf(!fs.existsSync(log))('no telemetry notice: Next reports no usage from a self-hosted service', () => {
    const text = fs.readFileSync(log, 'utf8');
    expect(text, 'the log of a build by the launcher').toContain('[leaf-ts] building the app');
    expect(text).not.toMatch(/telemetry/i);
  });
});

describe('an address already taken', () => {
  let tmp: TempDir;
  beforeAll(() => {
    tmp = tempDir('leaf-contract-port-');
  });
  afterAll(() => tmp?.remove());

  interface Launch {
    child: ChildProcess;
    output: () => string;
    exited: Promise<number | string>;
  }

  /** `npm start` in this checkout, as the leader of its own process group (a terminal's job). */
  function npmStart(port: number, db: string): Launch {
    const env = {
      ...cleanEnv(),
      PORT: String(port),
      HOST: '127.0.0.1',
      LEAF_SQLITE_FILE: db,
      LEAF_ADMIN_TOKEN: 'contract-port-admin-token',
      LEAF_LOG_LEVEL: 'info',
    };
    const child = spawnGroup('npm', ['start'], { cwd: REPO_ROOT, env });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const exited = new Promise<number | string>((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? String(signal))),
    );
    return { child, output: () => out, exited };
  }

  /** The refusal as a user reads it: one line of leaf-ts's own, no stack trace, nothing registered or leased. */
  function expectRefused(launch: Launch, port: number): void {
    const out = launch.output();
    const ours = out.split('\n').filter((line) => line.startsWith('leaf-ts:'));
    expect(ours, out).toEqual([
      `leaf-ts: cannot start: 127.0.0.1:${port} is already in use by another process; set PORT to a free port`,
    ]);
    expect(out, 'no stack trace').not.toMatch(/^\s+at /m);
    for (const event of ['node_registered', 'worker_acquired', 'runtime_ready'])
      expect(out, `${event} before the refusal`).not.toContain(`"event":"${event}"`);
  }

  /** Who is in the node registry and holds worker leases in the SQLite file (nobody when it was never created). */
  function rows(db: string): { nodes: unknown[]; workers: unknown[] } {
    if (!fs.existsSync(db)) return { nodes: [], workers: [] };
    const sqlite = new Database(db, { readonly: true });
    try {
      const table = (name: string, columns: string) =>
        sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) === undefined
          ? []
          : sqlite.prepare(`SELECT ${columns} FROM ${name}`).all();
      return {
        nodes: table('leaf_node', 'node_id, instance_id, state'),
        workers: table('leaf_worker', 'worker_id, instance_id'),
      };
    } finally {
      sqlite.close();
    }
  }

  it('by another program: npm start exits 78 with one line naming the address and PORT; nothing is left behind', async () => {
    const port = await freePort();
    const other = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
    try {
      const db = tmp.file('taken.db');
      const launch = npmStart(port, db);
      expect(await launch.exited, launch.output()).toBe(EX_CONFIG);
      expectRefused(launch, port);
      expect(rows(db)).toEqual({ nodes: [], workers: [] });
    } finally {
      other.close();
    }
  }, 120_000);

  it('by a second npm start in the same folder: it is refused for the port, and the first serves on untouched', async () => {
    const port = await freePort();
    const db = tmp.file('twice.db');
    const first = npmStart(port, db);
    const pgid = first.child.pid as number;
    try {
      await waitForHealth(first.child, port, 90_000);
      const before = await takeIds(`http://127.0.0.1:${port}/api/id/snowflake`);
      const registered = rows(db);
      expect(registered.nodes).toHaveLength(1);
      expect(registered.workers).toHaveLength(1);

      const second = npmStart(port, db);
      expect(await second.exited, second.output()).toBe(EX_CONFIG);
      expectRefused(second, port);
      expect(second.output(), 'the port is the cause, not the node id').not.toContain('LEAF_NODE_ID');
      expect(rows(db)).toEqual(registered);
      const after = await takeIds(`http://127.0.0.1:${port}/api/id/snowflake`);
      expect(after[0]).toBeGreaterThan(before[0] as bigint);
    } finally {
      if (groupPids(pgid).length > 0) signalGroup(pgid, 'SIGTERM');
      await waitGroupGone(pgid, 20_000);
    }
  }, 180_000);
});
