/**
 * The seams run, short (tools/chaos/seams; docs/testing.md#the-seams-run): two regions on SQLite files, three nodes,
 * a @leaf-ts/client and a @leaf-ts/embedded service each, clients on every ID path, 40 s of a seeded schedule of
 * admin operations and faults, one checker over the whole history. A child process, so its servers live outside the
 * vitest worker; `LEAF_CHAOS_SEED` replays a seed. The longer runs: test:cluster (MariaDB and PostgreSQL) and
 * `npm run chaos -- --seams --minutes N`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

const REPO_ROOT = path.resolve(__dirname, '../..');
let child: ChildProcess | null = null;

afterAll(() => {
  if (child !== null && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});

it('the seams run: every ID path beside every admin change and fault — none twice, none out of order', async () => {
  const seed = process.env.LEAF_CHAOS_SEED;
  const args = [
    '--import',
    'tsx',
    'tools/chaos/run.ts',
    '--seams',
    '--seconds',
    '40',
    ...(seed ? ['--seed', seed] : []),
  ];
  const proc = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  let out = '';
  proc.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  proc.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const code = await new Promise<number | string>((resolve) => proc.once('exit', (c, s) => resolve(c ?? String(s))));
  const summary = out.trim().split('\n').at(-1) ?? '';
  console.log(
    out
      .split('\n')
      .filter((l) => /FINDING|answers without|fleet up|seed=/.test(l))
      .join('\n'),
  );
  console.log(summary);
  expect(summary, `seams run failed; output tail:\n${out.slice(-8_000)}`).toMatch(
    /^chaos: seams .*duplicates=0 wrong-region=0 order-violations=0 .*bad-formats=0 unpermuted=0 .*: PASS$/,
  );
  expect(summary).not.toMatch(/order-judged=0 /);
  expect(code).toBe(0);
}, 150_000);
