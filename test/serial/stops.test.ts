/**
 * Stops as people and supervisors make them. leaf-ts is started exactly as a user starts it — `npm start` as the
 * leader of a process group of its own (a terminal's job), or the systemd unit's ExecStart with its working directory
 * (ops/systemd/leaf-ts.service) — serves some IDs, and is stopped one of three ways:
 *   ctrl-c           SIGINT to the whole group, as a terminal sends it (every other time pressed twice);
 *   systemd stop     SIGTERM to every process of the group, as systemd's default KillMode=control-group does;
 *   supervisor stop  SIGTERM to the top process only (npm, or the unit's main process under KillMode=mixed), as a
 *                    container runtime or a process manager does.
 * After each stop: no process of the group is left within the unit's TimeoutStopSec, the port is free, the tag's
 * max_id is the last ID served (the give-back ran to its end), and the next start's first ID is that + 1.
 * 4 stops of each way (10 at LEAF_TEST_SCALE=full), half through each launcher, on SQLite and MariaDB (the two loops run side by side). Then two
 * deaths: npm killed with SIGKILL (the server sees its parent gone and stops as gracefully), and the unit's main
 * process killed with SIGKILL (nothing of the group is left; no give-back, so the next start skips, never repeats).
 * Last, LEAF_WORKERS=2 stopped by Ctrl-C: the primary waits for both workers, each finishes its own give-back.
 */
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../lib/store/sqlite';
import type { LeafStore } from '../../lib/store/leafStore';
import {
  REPO_ROOT,
  cleanEnv,
  commandLine,
  freePort,
  groupPids,
  pollFor,
  readServiceUnit,
  rng,
  signalGroup,
  sleep,
  spawnGroup,
  waitForHealth,
  waitGroupGone,
} from '../../tools/harness';
import { takeIds } from '../support/clientIds';
import { type TempDir, tempDir } from '../support/context';
import { defined } from '../support/defined';
import { serverDialects } from '../support/dialects';
import { scaled } from '../support/scale';

const WAYS = ['ctrl-c', 'systemd stop', 'supervisor stop'] as const;
type Way = (typeof WAYS)[number] | 'kill -9 of the top process';
/** 4 covers every launcher × way × (Ctrl-C once or twice) pair; full scale repeats each 2.5 times. */
const PER_WAY = scaled(4, 10);
const TAG = 'stops';
const STEP = 1_000;
const unit = readServiceUnit(path.join(REPO_ROOT, 'ops/systemd/leaf-ts.service'));
const LAUNCHERS = {
  'npm start': ['npm', 'start'],
  'systemd unit': unit.execStart,
} as const;
type Launcher = keyof typeof LAUNCHERS;

const dialects = serverDialects('stops.db');
let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir('leaf-it-stops-');
});
afterAll(async () => {
  await dialects.drop();
  tmp?.remove();
});

/** `n` IDs of TAG: singles, batches and Leaf's plain-text route mixed, in the order served. */
async function serve(port: number, n: number, random: () => number): Promise<bigint[]> {
  const out: bigint[] = [];
  while (out.length < n) {
    const left = n - out.length;
    const pick = random();
    const count = left > 1 && pick < 0.4 ? 1 + Math.floor(random() * Math.min(left, 120)) : 1;
    const url =
      count > 1
        ? `/api/id/segment/${TAG}?count=${count}`
        : pick < 0.7
          ? `/api/id/segment/${TAG}`
          : `/api/segment/get/${TAG}`;
    out.push(...(await takeIds(`http://127.0.0.1:${port}${url}`)));
  }
  return out;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Stops the group led by `top` the given way. */
async function stop(way: Way, top: number, twice: boolean): Promise<void> {
  if (way === 'ctrl-c') {
    signalGroup(top, 'SIGINT');
    if (!twice) return;
    await sleep(5);
    signalGroup(top, 'SIGINT');
  } else if (way === 'systemd stop') {
    for (const pid of groupPids(top)) process.kill(pid, 'SIGTERM');
  } else {
    process.kill(top, way === 'supervisor stop' ? 'SIGTERM' : 'SIGKILL');
  }
}

describe.concurrent.each(dialects.all)('stops keep the give-back and leave nothing running, $name', (dialect) => {
  it(`${WAYS.length * PER_WAY} starts and stops as users and supervisors make them, then a kill -9 of npm and of the unit`, async (ctx) => {
    if (dialect.skip?.()) ctx.skip();
    const { store, databaseUrl, close } = await dialect.open(tmp);
    const random = rng(dialect.name.length * 7919);
    const port = await freePort();
    const env = {
      ...cleanEnv(),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LEAF_DATA_DIR: tmp.path,
      LEAF_ADMIN_TOKEN: 'stops-test-admin-token',
      LEAF_LOG_LEVEL: 'info',
    };
    const tally = { repeatsNoted: 0, idsGivenBack: 0n };
    try {
      await store.tags.createTag({ bizTag: TAG, step: STEP });
      const plan: Array<{ launcher: Launcher; way: Way; twice: boolean; workers?: number }> = [];
      for (let round = 0; round < PER_WAY; round++) {
        for (const way of WAYS) {
          plan.push({
            launcher: round % 2 === 0 ? 'npm start' : 'systemd unit',
            way,
            twice: way === 'ctrl-c' && round % 4 >= 2,
          });
        }
      }
      plan.push({ launcher: 'npm start', way: 'kill -9 of the top process', twice: false });
      plan.push({ launcher: 'systemd unit', way: 'kill -9 of the top process', twice: false });
      plan.push({ launcher: 'npm start', way: 'ctrl-c', twice: false }); // the first ID after the unit's kill -9
      plan.push({ launcher: 'npm start', way: 'ctrl-c', twice: false, workers: 2 });
      plan.push({ launcher: 'systemd unit', way: 'supervisor stop', twice: false }); // the first ID after the cluster
      let after: Run['after'] = null;
      for (const [i, step] of plan.entries()) {
        const what = `${dialect.name} run ${i + 1}: ${step.launcher}${step.workers ? ` with LEAF_WORKERS=${step.workers}` : ''}, stopped by ${step.way}${step.twice ? ' (twice)' : ''}`;
        const runEnv = step.workers === undefined ? env : { ...env, LEAF_WORKERS: String(step.workers) };
        after = await stopAndCheck(store, { ...step, env: runEnv, port, random, what, after, tally });
      }
      process.stdout.write(
        `[stops ${dialect.name}] ${WAYS.length * PER_WAY} stops (${WAYS.map((w) => `${PER_WAY} ${w}`).join(', ')}), 2 kill -9s and a 2-worker cluster: ` +
          `every process gone each time, max_id = last ID served after every stop and npm's kill -9; ${tally.idsGivenBack} IDs given back in all; ` +
          `a repeated signal noted while stopping ${tally.repeatsNoted} times\n`,
      );
    } finally {
      await close();
    }
  }, 600_000);
});

describe('a stop while the node is still starting', () => {
  it('SIGTERM right after the node registered, before it listens: exit 0, its registry row stopped, its worker id released', async () => {
    const tmpDir = tempDir('leaf-it-stop-early-');
    const file = tmpDir.file('early.db');
    const store = new SqliteStore({ file });
    try {
      const port = await freePort();
      const env = {
        ...cleanEnv(),
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `file:${file}`,
        LEAF_ADMIN_TOKEN: 'stops-test-admin-token',
        LEAF_LOG_LEVEL: 'info',
        LEAF_NODE_ID: 'early',
      };
      const child = spawnGroup('npm', ['start'], { cwd: REPO_ROOT, env });
      let output = '';
      const registered = new Promise<void>((resolve) => {
        const keep = (chunk: Buffer) => {
          output += chunk.toString('utf8');
          if (output.includes('"event":"node_registered"')) resolve();
        };
        child.stdout?.on('data', keep);
        child.stderr?.on('data', keep);
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await registered;
      process.kill(child.pid as number, 'SIGTERM');
      expect(await waitGroupGone(child.pid as number, unit.timeoutStopMs), output).toEqual([]);
      expect(await exited, output).toBe(0);
      // If it was stopped before it listened, nothing could have been served; either way its goodbye was written.
      const row = (await store.nodes.listNodes()).rows.find((r) => r.nodeId === 'early');
      expect(row?.state, output).toBe('stopped');
      const lease = (await store.workers.listWorkers()).find((w) => w.nodeId === 'early');
      expect(lease?.leaseExpiresAt, output).toBe(0);
      expect(output).toContain('"event":"give_back_done"');
    } finally {
      await store.close();
      tmpDir.remove();
    }
  }, 120_000);
});

interface Run {
  launcher: Launcher;
  way: Way;
  twice: boolean;
  /** LEAF_WORKERS, when more than one. */
  workers?: number;
  env: Record<string, string>;
  port: number;
  random: () => number;
  what: string;
  /** The last ID served before this start, and whether that stop gave back (the first ID is then exactly the next). */
  after: { last: bigint; gaveBack: boolean } | null;
  tally: { repeatsNoted: number; idsGivenBack: bigint };
}

/** One start, some IDs, one stop, and the checks; returns the last ID served and whether it was given back to. */
async function stopAndCheck(store: LeafStore, run: Run): Promise<Run['after']> {
  const [command, ...args] = LAUNCHERS[run.launcher];
  // The unit's own Environment= lines apply under systemd; the run's database and port win over them.
  const env = run.launcher === 'systemd unit' ? { ...unit.environment, ...run.env } : run.env;
  const child = spawnGroup(command, args, { cwd: REPO_ROOT, env });
  const top = child.pid as number;
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-30_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? String(signal))),
  );
  try {
    await waitForHealth(child, run.port, 90_000);
  } catch (error) {
    signalGroup(top, 'SIGKILL');
    throw new Error(`${run.what}: did not start: ${(error as Error).message}\n${output}`, { cause: error });
  }

  let ids: bigint[];
  try {
    // A cluster answers health once its first worker listens: wait for every worker, as a ready fleet.
    const workers = run.workers ?? 1;
    if (workers > 1) {
      const ready = await pollFor(
        60_000,
        () => ([...output.matchAll(/"event":"listening"/g)].length >= workers ? true : undefined),
        100,
      );
      expect(ready, `${run.what}: not every worker listening\n${output}`).toBe(true);
    }
    ids = await serve(run.port, 1 + Math.floor(run.random() * 400), run.random);
  } catch (error) {
    signalGroup(top, 'SIGKILL'); // a failed run must not leave its server running for the rest of the suite
    throw error;
  }
  if (run.after?.gaveBack === true)
    expect(ids[0], `${run.what}: the first ID after a graceful stop`).toBe(run.after.last + 1n);
  if (run.after?.gaveBack === false)
    expect(ids[0], `${run.what}: the first ID after a kill -9`).toBeGreaterThan(run.after.last);
  // Increasing from one node; from a cluster's workers interleaved, so the highest.
  const last = ids.reduce((a, b) => (b > a ? b : a));
  const processes = groupPids(top).map((pid) => `${pid} ${commandLine(pid)}`);

  await stop(run.way, top, run.twice);
  const left = await waitGroupGone(top, unit.timeoutStopMs);
  if (left.length > 0) {
    const named = left.map((pid) => `${pid} ${commandLine(pid)}`);
    signalGroup(top, 'SIGKILL');
    expect.fail(
      `${run.what}: still running ${unit.timeoutStopMs} ms after the stop: ${named.join('; ')}\n(the group was: ${processes.join('; ')})\n${output}`,
    );
  }
  const code = await exited;
  expect(await portIsFree(run.port), `${run.what}: the port is still taken`).toBe(true);
  const maxId = BigInt((await store.tags.getTag(TAG))?.maxId ?? 0);
  // A SIGKILLed server gives nothing back: its row stays above what it served (a gap, never a repeat). A cluster's
  // workers each give back only from the tag's latest claim if it is theirs, so the row may stay above the highest ID.
  const cluster = (run.workers ?? 1) > 1;
  const gaveBack = !cluster && !(run.way === 'kill -9 of the top process' && run.launcher === 'systemd unit');
  if (cluster) {
    const stops = [...output.matchAll(/"event":"give_back_done"/g)].length;
    expect(stops, `${run.what}: workers that finished their stop\n${output.slice(-4_000)}`).toBe(run.workers);
    expect(maxId, `${run.what}: max_id after the stop`).toBeGreaterThanOrEqual(last);
  } else if (gaveBack) {
    // systemd's Restart=on-failure reads the main process's exit: a stop it asked for must end in 0.
    if (run.launcher === 'systemd unit') expect(code, `${run.what}: exit status\n${output}`).toBe(0);
    expect(String(maxId), `${run.what}: max_id after the stop (last ID served ${last})\n${output.slice(-4_000)}`).toBe(
      String(last),
    );
  } else {
    expect(maxId, `${run.what}: max_id after the stop`).toBeGreaterThan(last);
  }

  if (output.includes('"event":"stop_already_in_progress"')) run.tally.repeatsNoted++;
  for (const m of output.matchAll(/"event":"give_back_done","tags":\d+,"ids":(\d+)/g))
    run.tally.idsGivenBack += BigInt(defined(m[1], 'the IDs given back'));
  return { last, gaveBack };
}
