/**
 * leaf-ts/client and leaf-ts/embedded as another project gets them: what `npm pack` would ship, and examples/client
 * and examples/embedded copied to a temp folder, installed by path (npm install, which runs this checkout's
 * `prepare`) and run with plain `node` — the client against a real server (server.ts, production build), the
 * embedded one straight on a SQLite file.
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

it('npm pack ships the compiled client and embedded entry points with their declarations and the migrations, no sources or app', () => {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8' })) as Array<{ files: Array<{ path: string }> }>;
  const files = pack?.files.map((f) => f.path) ?? [];
  expect(files).toEqual(
    expect.arrayContaining([
      'package.json',
      'dist/client/index.js',
      'dist/client/index.d.ts',
      'dist/clock.js',
      'dist/embedded/index.js',
      'dist/embedded/index.d.ts',
      'dist/segment/engine.js',
      'dist/store/sqlite/tags.js',
      'drizzle/sqlite/meta/_journal.json',
      'drizzle/mysql/meta/_journal.json',
    ]),
  );
  const migrations = (dialect: string) => fs.readdirSync(path.join(REPO_ROOT, 'drizzle', dialect)).filter((f) => f.endsWith('.sql')).map((f) => `drizzle/${dialect}/${f}`);
  expect(files).toEqual(expect.arrayContaining([...migrations('sqlite'), ...migrations('mysql')]));
  expect(files.filter((f) => !f.startsWith('dist/') && !f.startsWith('drizzle/') && f !== 'package.json' && f !== 'README.md')).toEqual([]);
  expect(files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toBe(false);
  expect(files.some((f) => /^dist\/(http|runtime|config|admin|metrics|fleet)/.test(f))).toBe(false);
});

/** examples/<name> copied out of the checkout and installed from it by path, as another project would. */
function installExample(name: string): string {
  const project = path.join(tmp.path, name);
  fs.cpSync(path.join(REPO_ROOT, 'examples', name), project, { recursive: true, filter: (src) => !/node_modules|package-lock/.test(src) });
  const manifest = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
  manifest.dependencies['leaf-ts'] = `file:${REPO_ROOT}`;
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify(manifest));
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: project, stdio: 'pipe', timeout: 120_000 });
  return project;
}

it('examples/client installs leaf-ts by path and runs with plain node', async () => {
  const project = installExample('client');

  const file = tmp.file('leaf.db');
  const store = new SqliteStore({ file });
  await store.tags.createTag({ bizTag: 'orders', step: 1_000, maxId: 2 ** 40 });
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

it('examples/embedded installs leaf-ts by path and runs with plain node straight on a SQLite file', async () => {
  const project = installExample('embedded');
  const file = tmp.file('embedded.db');
  const store = new SqliteStore({ file });
  await store.tags.createTag({ bizTag: 'orders', step: 1_000, maxId: 2 ** 40 });
  await store.close();

  // From the example's own folder: the migrations come from the installed package, not the working directory.
  const out = execFileSync(process.execPath, ['index.mjs', `file:${file}`, 'orders'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
  const first = BigInt(/first ID: (\d+)/.exec(out)?.[1] ?? '0');
  expect(first).toBe(2n ** 40n + 1n);
  expect(out).toMatch(/1,000,000 more IDs in [\d.]+ s, last \d+/);
  const batch = /a batch of 5: (.*)/.exec(out)?.[1]?.split(', ').map(BigInt) ?? [];
  expect(batch).toHaveLength(5);
  expect(batch[0]).toBeGreaterThan(first + 1_000_000n - 1n);

  // A brand-new file: created, migrated and seeded with the demo tag, as `npm start` does; an unknown tag is a clear error.
  const fresh = execFileSync(process.execPath, ['index.mjs', path.join(tmp.path, 'fresh.db')], { cwd: project, encoding: 'utf8', timeout: 60_000 });
  expect(fresh).toMatch(/first ID: 2\n/);
  let failed = '';
  try {
    execFileSync(process.execPath, ['index.mjs', `file:${file}`, 'ghost'], { cwd: project, encoding: 'utf8', stdio: 'pipe', timeout: 60_000 });
  } catch (error) {
    failed = String((error as { stderr?: string }).stderr);
  }
  expect(failed).toMatch(/leaf-ts: tag_not_found: /);
});
