/**
 * Runs the chaos suite (tools/chaos/run.ts, small size) as a child process, ten times: on one MariaDB (≤ 2 min), on
 * one PostgreSQL (`--db postgres`, ≤ 2 min), on a 3-node Galera cluster (`--db galera`, ≤ 3 min), on a 3-node synchronous
 * Patroni cluster (`--db patroni`, ≤ 3.5 min), through HAProxy running ops/haproxy/haproxy.cfg (`--lb haproxy`, ≤ 2 min), the strict-tag run (`--ordered`, ≤ 1 min each on MariaDB and PostgreSQL), two regions on MariaDB and PostgreSQL (`--regions`, ≤ 1 min, and its control, both regions numbered 0, which must find duplicates), and the seams run on MariaDB and PostgreSQL (`--seams --db servers`, 90 s of schedule, ≤ 2 min), so its servers, databases and load loops live outside the vitest worker. The harness prints its progress (shown here as it comes) and one summary line; it exits non-zero
 * on any violation. Needs a Next build (scripts/test.sh makes one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

const REPO_ROOT = path.resolve(__dirname, '../..');
let child: ChildProcess | null = null;

afterAll(() => {
  // A timed-out test leaves the harness running: SIGTERM makes it exit, and its exit hooks kill the servers.
  if (child !== null && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});

const PASS_WITHOUT_DUPLICATES = /^chaos: .*duplicates=0 .*: PASS$/;

/** Runs the suite with `options` and expects its PASS summary line and exit code 0. */
async function chaos(...options: string[]): Promise<void> {
  return chaosExpecting(PASS_WITHOUT_DUPLICATES, ...options);
}

async function chaosExpecting(summaryPattern: RegExp, ...options: string[]): Promise<void> {
  const seed = process.env.LEAF_CHAOS_SEED;
  const args = [
    '--import',
    'tsx',
    'tools/chaos/run.ts',
    ...options,
    '--size',
    'small',
    ...(seed ? ['--seed', seed] : []),
  ];
  const proc = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  let out = '';
  let partial = '';
  const onData = (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    out += chunk.toString('utf8');
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) console.log(line);
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  const code = await new Promise<number | string>((resolve) => proc.once('exit', (c, s) => resolve(c ?? String(s))));
  if (partial) console.log(partial);
  const summary = out.trim().split('\n').at(-1) ?? '';
  expect(summary, `chaos run failed; output tail:\n${out.slice(-8_000)}`).toMatch(summaryPattern);
  expect(code).toBe(0);
}

it(
  'chaos (small): node kills, a MariaDB outage, a slow DB and connection cuts — no duplicate, no 500, no hang',
  () => chaos('--db', 'mariadb'),
  200_000,
);

it(
  'chaos on PostgreSQL (small): node kills, a PostgreSQL stop past the buffers and start, a slow DB and connection cuts — no duplicate, no 500, no hang',
  () => chaos('--db', 'postgres'),
  200_000,
);

it(
  'chaos on Galera (small): Galera nodes killed, one partitioned off, the whole cluster down — no duplicate, no 500, no hang',
  () => chaos('--db', 'galera'),
  260_000,
);

it(
  'chaos on Patroni (small, synchronous_mode): the primary SIGKILLed and rejoined, a switchover, a replica killed, a node killed — no duplicate, no 500, no hang',
  () => chaos('--db', 'patroni'),
  260_000,
);

it(
  'chaos through HAProxy (small): nodes SIGKILLed and stopped gracefully behind the recipe — no duplicate, no failed request but during a SIGKILL',
  () => chaos('--lb', 'haproxy'),
  160_000,
);

it(
  'ordered chaos on MariaDB (small): the strict tag owner killed, paused, stopped and cut off, a database outage — nothing out of order, no duplicate',
  () => chaos('--ordered', '--db', 'mariadb'),
  180_000,
);

it(
  'ordered chaos on PostgreSQL (small): the same faults — nothing out of order, no duplicate',
  () => chaos('--ordered', '--db', 'postgres'),
  180_000,
);

it(
  'chaos across two regions (small): region 0 on MariaDB, region 1 on PostgreSQL, nodes killed, each database down in turn — no duplicate over the union, the other region at its rate',
  () => chaos('--regions'),
  180_000,
);

it(
  'chaos across two regions, control: both numbered 0 (what must never be done) — the check finds the duplicates',
  () => chaosExpecting(/^chaos: regions control .*duplicates=[1-9]\d* .*: PASS$/, '--regions', '--control'),
  180_000,
);

it(
  'the seams run on MariaDB and PostgreSQL (two regions, 90 s of admin operations and faults over every ID path, both packages): none twice, none out of order',
  () =>
    chaosExpecting(
      /^chaos: seams .*duplicates=0 wrong-region=0 order-violations=0 .*: PASS$/,
      '--seams',
      '--db',
      'servers',
      '--seconds',
      '90',
    ),
  240_000,
);
