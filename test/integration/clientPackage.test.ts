/**
 * leaf-ts/client as another project gets it: what `npm pack` would ship, and examples/client copied to a temp
 * folder, installed by path (npm install, which runs this checkout's `prepare`) and run with plain `node` against a
 * real server (server.ts, production build).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqliteStore } from '../../lib/store/sqlite';
import { REPO_ROOT, startNodeServer, stopAllChildren } from '../../tools/harness';
import { type TempDir, tempDir } from '../support/context';

let tmp: TempDir;

beforeAll(() => {
  tmp = tempDir('leaf-it-client-pkg-');
  // What `prepare` does on npm install: compile dist/ from this checkout's sources, so neither test sees a stale or
  // missing build (a checkout whose dist/ predates a source change, or a run where only this file is picked).
  execFileSync(process.execPath, ['scripts/buildClient.mjs'], { cwd: REPO_ROOT, stdio: 'pipe', timeout: 120_000 });
});
afterAll(async () => {
  await stopAllChildren(0);
  tmp?.remove();
});

it('npm pack ships the compiled client with its declarations, and no sources or app', () => {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8' })) as Array<{ files: Array<{ path: string }> }>;
  const files = pack?.files.map((f) => f.path) ?? [];
  expect(files).toEqual(expect.arrayContaining(['package.json', 'dist/client/index.js', 'dist/client/index.d.ts', 'dist/clock.js']));
  expect(files.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md')).toEqual([]);
  expect(files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toBe(false);
});

it('examples/client installs leaf-ts by path and runs with plain node', async () => {
  const project = path.join(tmp.path, 'example');
  fs.cpSync(path.join(REPO_ROOT, 'examples/client'), project, { recursive: true, filter: (src) => !/node_modules|package-lock/.test(src) });
  const manifest = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
  manifest.dependencies['leaf-ts'] = `file:${REPO_ROOT}`;
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify(manifest));
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: project, stdio: 'pipe', timeout: 120_000 });

  const file = tmp.file('leaf.db');
  const store = new SqliteStore({ file });
  await store.createTag({ bizTag: 'orders', step: 1_000, maxId: 2 ** 40 });
  await store.close();
  const env = { ...process.env, NODE_ENV: 'production', LEAF_SQLITE_FILE: file, LEAF_ID_TOKEN: 'example-token', LEAF_LOG_LEVEL: 'warn', LEAF_SNOWFLAKE: 'off' };
  const { port } = await startNodeServer({ env: env as NodeJS.ProcessEnv, timeoutMs: 60_000 });

  const out = execFileSync(process.execPath, ['index.mjs', 'orders'], {
    cwd: project,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, LEAF_URLS: `http://127.0.0.1:${port}`, LEAF_ID_TOKEN: 'example-token' },
  });
  const first = BigInt(/first ID: (\d+)/.exec(out)?.[1] ?? '0');
  expect(first).toBe(2n ** 40n + 1n);
  expect(out).toMatch(/1,000,000 more IDs in [\d.]+ s, last \d+/);
  const batch = /a batch of 5: (.*)/.exec(out)?.[1]?.split(', ').map(BigInt) ?? [];
  expect(batch).toHaveLength(5);
  expect(batch[0]).toBeGreaterThan(first + 1_000_000n - 1n);
});
