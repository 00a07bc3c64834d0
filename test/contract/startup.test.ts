/** A bad setting stops the start with one plain line naming the variable, before anything else starts. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

function start(env: Record<string, string>): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: path.resolve(__dirname, '../..'),
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
    '%j exits 1 with one line',
    (env, line) => {
      const r = start(env);
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([line]);
      expect(r.stdout).toBe('');
    },
    40_000,
  );
});
