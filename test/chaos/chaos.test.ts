/**
 * Runs the chaos suite (tools/chaos/run.ts, small size: ≤ 2 min) as a child process, so its three servers, private
 * MariaDB and load loops live outside the vitest worker. The harness prints its progress (shown here as it comes)
 * and one summary line; it exits non-zero on any violation. Needs a Next build (scripts/test.sh makes one).
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

it('chaos (small): node kills, a MariaDB outage, a slow DB and connection cuts — no duplicate, no 500, no hang', async () => {
  const seed = process.env.LEAF_CHAOS_SEED;
  const args = ['--import', 'tsx', 'tools/chaos/run.ts', '--size', 'small', ...(seed ? ['--seed', seed] : [])];
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
  expect(summary, `chaos run failed; output tail:\n${out.slice(-8_000)}`).toMatch(/^chaos: .*duplicates=0 .*: PASS$/);
  expect(code).toBe(0);
}, 200_000);
