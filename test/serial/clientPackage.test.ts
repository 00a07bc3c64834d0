/**
 * @leaf-ts/client and @leaf-ts/embedded as another project gets them: `npm pack` (prepack builds from lib/), the
 * tarball installed into an empty project, type-checked as a consumer's tsc would, and run with plain `node` both
 * as CommonJS (`require`) and as an ES module (`import`) — the client against a real server (server.ts, production
 * build), the embedded one straight on a SQLite file. Then examples/client and examples/embedded, copied out and
 * installed by path. The tarball sizes, install times and package counts are printed for the closing note.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../lib/store/sqlite';
import { REPO_ROOT, cleanEnv, startNodeServer, stopAllChildren } from '../../tools/harness';
import { type TempDir, tempDir } from '../support/context';
import { FULL_SCALE } from '../support/scale';
import {
  type Packed,
  describeInstall,
  betterSqlitePrebuild,
  installTarball,
  packWorkspaces,
  packageOf,
  requiredSpecifiers,
  runScript,
  scriptFor,
  typeCheck,
} from '../support/npmPackages';

const TOKEN = 'package-token';
/** Server modules neither package may ship (the client: nothing of the engine or stores either). */
// Of lib/snowflake only the pure layout functions (IDs ↔ time without a call): never the node, generator or stores.
const SERVER_MODULES =
  /^dist\/(http|runtime|config|admin|metrics|fleet|auth)[/.]|^dist\/snowflake\/(?!(layout|timeBounds)\.(js|d\.ts)$)/;

let tmp: TempDir;
let packs: Map<string, Packed>;
let server: Promise<string> | undefined;

beforeAll(() => {
  tmp = tempDir('leaf-it-packages-');
  packs = packWorkspaces(tmp.path);
}, 300_000);
afterAll(async () => {
  await stopAllChildren(0);
  tmp?.remove();
});

/** One real leaf-ts server for every client test, on a SQLite file with the tags they use; its URL. */
function leafServer(): Promise<string> {
  server ??= (async () => {
    const file = tmp.file('server.db');
    const store = new SqliteStore({ file });
    for (const bizTag of ['orders', 'pkg']) await store.tags.createTag({ bizTag, step: 1_000, maxId: 2 ** 40 });
    await store.close();
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      LEAF_SQLITE_FILE: file,
      LEAF_ID_TOKEN: TOKEN,
      LEAF_LOG_LEVEL: 'warn',
      LEAF_SNOWFLAKE: 'off',
    };
    return (await startNodeServer({ env: env as NodeJS.ProcessEnv, timeoutMs: 60_000 })).url;
  })();
  return server;
}

function pack(name: string): Packed {
  const packed = packs.get(name);
  if (packed === undefined)
    throw new Error(`npm pack --workspaces made no ${name} (made: ${[...packs.keys()].join(', ')})`);
  return packed;
}

/** The packed files that are neither compiled output with its declarations nor the manifest and README. */
function strays(files: string[], alsoShipped = /^$/): string[] {
  return files.filter(
    (f) =>
      !/^dist\/.+\.(js|d\.ts|mjs|d\.mts)$/.test(f) && f !== 'package.json' && f !== 'README.md' && !alsoShipped.test(f),
  );
}

/** Every path package.json points at (main, types, each exports condition) is in the tarball. */
function entryPoints(manifest: Record<string, unknown>): string[] {
  const paths: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') paths.push(value.replace(/^\.\//, ''));
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk([manifest.main, manifest.types, manifest.exports]);
  return paths;
}

/**
 * `body` run with plain node as CommonJS, then as an ES module, in `dir`: each prints 4 increasing IDs, the `code` of
 * the error it provoked, and whether require and import gave the same classes; the second starts above the first's
 * IDs. Returns the first process's first ID.
 */
function runBothWays(
  dir: string,
  pkg: string,
  names: [string, string],
  body: string,
  env: Record<string, string>,
  code: string,
): bigint {
  const runs = (['cjs', 'mjs'] as const).map((format) =>
    runScript(dir, `run.${format}`, scriptFor(format, pkg, names, body), env),
  );
  const ids = runs.map((run) => (run.ids as string[]).map(BigInt));
  for (const [i, run] of runs.entries()) {
    expect(ids[i]).toHaveLength(4);
    expect(ids[i]).toEqual([...(ids[i] as bigint[])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(new Set(ids[i]).size).toBe(4);
    expect(run).toMatchObject({ code, sameClass: true, sameError: true });
  }
  expect(ids[1]?.[0]).toBeGreaterThan(ids[0]?.[3] as bigint);
  return ids[0]?.[0] as bigint;
}

describe('the packages as docs/api.md describes them', () => {
  it.each(['@leaf-ts/client', '@leaf-ts/embedded'])(
    '%s: its tarball is the size (within a tenth) and file count the docs say',
    (name) => {
      const api = fs.readFileSync(path.join(REPO_ROOT, 'docs/api.md'), 'utf8');
      const folder = name.replace('@leaf-ts/', 'packages/');
      const stated = new RegExp(`\`npm pack\` in \`${folder}\`[^]*?makes a (\\d+) KB tarball \\((\\d+) files`).exec(
        api,
      );
      expect(stated, `docs/api.md states ${folder}'s tarball`).not.toBeNull();
      const { files, size } = pack(name);
      expect(files.length, `files in ${name} (docs/api.md says ${stated![2]})`).toBe(Number(stated![2]));
      expect(Math.abs(size / 1000 - Number(stated![1])), `${name} is ${size} bytes`).toBeLessThanOrEqual(
        Number(stated![1]) / 10,
      );
    },
  );
});

describe('@leaf-ts/client', () => {
  it('packs compiled JavaScript with declarations, under 100 KB: no TypeScript sources, no server, engine or store modules', () => {
    const { files, size } = pack('@leaf-ts/client');
    expect(size).toBeLessThan(100_000);
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/client/index.js',
        'dist/client/index.d.ts',
        'dist/index.mjs',
        'dist/index.d.mts',
        'dist/clock.js',
      ]),
    );
    expect(strays(files)).toEqual([]);
    expect(files.filter((f) => SERVER_MODULES.test(f) || /^dist\/(segment|store|embedded|format)\//.test(f))).toEqual(
      [],
    );
    for (const js of files.filter((f) => f.endsWith('.js'))) expect(files).toContain(js.replace(/\.js$/, '.d.ts'));
  });

  it(
    'installs from the tarball as exactly one package with no dependencies, and runs with plain node by require and by import',
    { timeout: 300_000 },
    async () => {
      const packed = pack('@leaf-ts/client');
      const installed = installTarball(tmp.file('uses-client'), packed.tarball);
      console.log(`[packages] ${describeInstall(packed, installed)}`);
      expect(installed.packages).toEqual(['node_modules/@leaf-ts/client']);

      // Zero dependencies, as shipped: none declared, and the compiled code requires only Node's builtins and itself.
      const home = path.join(installed.dir, 'node_modules', '@leaf-ts', 'client');
      const manifest = JSON.parse(fs.readFileSync(path.join(home, 'package.json'), 'utf8'));
      expect(
        Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies }),
      ).toEqual([]);
      expect(
        requiredSpecifiers(path.join(home, 'dist')).filter((s) => !s.startsWith('.') && !s.startsWith('node:')),
      ).toEqual([]);
      expect(entryPoints(manifest).filter((p) => !packed.files.includes(p))).toEqual([]);

      // The declarations, from an ES module and from a CommonJS one; nextId's result is not a bigint unchecked.
      const consumer = `import { LeafClient, LeafClientError, type LeafClientOptions } from '@leaf-ts/client';
const options: LeafClientOptions = { urls: ['http://127.0.0.1:1'], timeoutMs: 100 };
const client = new LeafClient(options);
export const id: bigint | Promise<bigint> = client.nextId('orders');
// @ts-expect-error nextId may return a promise
export const unchecked: bigint = client.nextId('orders');
export const error: LeafClientError | undefined = undefined;
client.close();
`;
      typeCheck(installed.dir, { 'check.mts': consumer, 'check.cts': consumer });

      const body = `const client = new LeafClient({ urls: [process.env.LEAF_URL], token: process.env.LEAF_ID_TOKEN });
  const ids = [await client.nextId('pkg'), ...(await client.take('pkg', 3))];
  const error = await failure(() => client.nextId('ghost'));
  client.close();
  return { ids, error };`;
      const first = runBothWays(
        installed.dir,
        '@leaf-ts/client',
        ['LeafClient', 'LeafClientError'],
        body,
        { LEAF_URL: await leafServer(), LEAF_ID_TOKEN: TOKEN },
        'tag_not_found',
      );
      expect(first).toBe(2n ** 40n + 1n);
    },
  );
});

describe('@leaf-ts/embedded', () => {
  it('packs compiled JavaScript with declarations and the migrations of every dialect: no TypeScript sources, no server modules', () => {
    const { files } = pack('@leaf-ts/embedded');
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/embedded/index.js',
        'dist/embedded/index.d.ts',
        'dist/index.mjs',
        'dist/index.d.mts',
        'dist/segment/engine.js',
        'dist/store/sqlite/tags.js',
      ]),
    );
    for (const dialect of fs.readdirSync(path.join(REPO_ROOT, 'drizzle'))) {
      const sql = fs.readdirSync(path.join(REPO_ROOT, 'drizzle', dialect)).filter((f) => f.endsWith('.sql'));
      expect(sql.length).toBeGreaterThan(0);
      expect(files).toEqual(
        expect.arrayContaining([`drizzle/${dialect}/meta/_journal.json`, ...sql.map((f) => `drizzle/${dialect}/${f}`)]),
      );
    }
    expect(strays(files, /^drizzle\/\w+\/(\w+\.sql|meta\/_journal\.json)$/)).toEqual([]);
    // The store implements interfaces that live beside their users (admin/auditStore, fleet/nodeStore, …): types
    // only, so their .js must hold no code; any other server module is a stray.
    const storeInterface = (f: string) => /\/\w+Store\.(js|d\.ts)$/.test(f);
    expect(files.filter((f) => (SERVER_MODULES.test(f) && !storeInterface(f)) || f.startsWith('dist/client/'))).toEqual(
      [],
    );
    for (const f of files.filter((x) => SERVER_MODULES.test(x) && x.endsWith('Store.js'))) {
      expect(
        fs
          .readFileSync(path.join(REPO_ROOT, 'packages', 'embedded', f), 'utf8')
          .replace(/\/\/.*$/gm, '')
          .replace(
            /"use strict";|Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);|export \{\};/g,
            '',
          )
          .trim(),
        f,
      ).toBe('');
    }
    for (const js of files.filter((f) => f.endsWith('.js'))) expect(files).toContain(js.replace(/\.js$/, '.d.ts'));
  });

  it("declares exactly the packages its compiled code requires, at the root's versions", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'packages', 'embedded', 'package.json'), 'utf8'));
    const root = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const required = requiredSpecifiers(path.join(REPO_ROOT, 'packages', 'embedded', 'dist')).filter(
      (s) => !s.startsWith('.') && !s.startsWith('node:'),
    );
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...new Set(required.map(packageOf))].sort());
    for (const [name, range] of Object.entries(manifest.dependencies))
      expect(`${name}@${range}`).toBe(`${name}@${root.dependencies[name]}`);
    expect(
      Object.keys(manifest.dependencies).filter((name) =>
        /^(next|react|react-dom|recharts|@tanstack\/|prom-client|tsx)/.test(name),
      ),
    ).toEqual([]);
  });

  it(
    "installs from the tarball (better-sqlite3 built under the project's allowScripts) and runs with plain node by require and by import",
    { timeout: 900_000 },
    () => {
      const packed = pack('@leaf-ts/embedded');
      // Full scale compiles better-sqlite3 from source, as on a machine that cannot download its prebuilt binary.
      const installed = installTarball(
        tmp.file('uses-embedded'),
        packed.tarball,
        { allowScripts: { 'better-sqlite3': true } },
        FULL_SCALE ? {} : betterSqlitePrebuild(tmp.file('prebuilds')),
      );
      console.log(`[packages] ${describeInstall(packed, installed)}`);
      expect(installed.packages).toContain('node_modules/@leaf-ts/embedded');
      expect(
        installed.packages.filter((p) => /node_modules\/(next|react|react-dom|recharts|typescript)$/.test(p)),
      ).toEqual([]);
      const manifest = JSON.parse(
        fs.readFileSync(path.join(installed.dir, 'node_modules', '@leaf-ts', 'embedded', 'package.json'), 'utf8'),
      );
      expect(entryPoints(manifest).filter((p) => !packed.files.includes(p))).toEqual([]);

      const consumer = `import { createLeaf, LeafError, type EmbeddedLeaf, type EmbeddedOptions } from '@leaf-ts/embedded';
const options: EmbeddedOptions = { databaseUrl: 'file:./leaf.db', giveBack: true };
export async function first(): Promise<bigint> {
  const leaf: EmbeddedLeaf = await createLeaf(options);
  // @ts-expect-error nextId may return a promise
  const unchecked: bigint = leaf.nextId('demo');
  void unchecked;
  return leaf.nextId('demo');
}
export const error: LeafError | undefined = undefined;
`;
      typeCheck(installed.dir, { 'check.mts': consumer, 'check.cts': consumer });

      // A brand-new SQLite file (created, migrated from the package's own drizzle/, seeded with `demo`), from a working
      // directory without migrations; then the ES module on the same file, above every ID the first process issued.
      const body = `const leaf = await createLeaf({ databaseUrl: process.env.LEAF_DB });
  const ids = [await leaf.nextId('demo'), ...(await leaf.take('demo', 3))];
  const error = await failure(() => leaf.nextId('not a tag!'));
  await leaf.close();
  return { ids, error };`;
      const first = runBothWays(
        installed.dir,
        '@leaf-ts/embedded',
        ['createLeaf', 'LeafError'],
        body,
        { LEAF_DB: `file:${tmp.file('embedded-pkg.db')}` },
        'invalid_tag',
      );
      expect(first).toBe(2n);
    },
  );
});

/** examples/<name> copied out of the checkout and installed from its package by path, as another project would. */
function installExample(name: string): string {
  const project = path.join(tmp.path, `example-${name}`);
  fs.cpSync(path.join(REPO_ROOT, 'examples', name), project, {
    recursive: true,
    filter: (src) => !/node_modules|package-lock/.test(src),
  });
  const manifest = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
  manifest.dependencies[`@leaf-ts/${name}`] = `file:${path.join(REPO_ROOT, 'packages', name)}`;
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify(manifest));
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: project, stdio: 'pipe', timeout: 120_000 });
  return project;
}

/** The examples' three lines: the first ID, a million more, a batch of 5 above them. */
function expectExampleRun(out: string, first: bigint): void {
  expect(BigInt(/first ID: (\d+)/.exec(out)?.[1] ?? '0')).toBe(first);
  expect(out).toMatch(/1,000,000 more IDs in [\d.]+ s, last \d+/);
  const batch = /a batch of 5: (.*)/.exec(out)?.[1]?.split(', ').map(BigInt) ?? [];
  expect(batch).toHaveLength(5);
  expect(batch[0]).toBeGreaterThan(first + 1_000_000n - 1n);
}

it(
  'examples/client installs @leaf-ts/client by path and runs as its README says: npm start, against a new node',
  { timeout: 300_000 },
  async () => {
    const project = installExample('client');
    // A new node, as `npm start` makes one: a fresh SQLite file, nothing but the demo tag, no token.
    const node = await startNodeServer({
      env: {
        ...cleanEnv(),
        NODE_ENV: 'production',
        LEAF_SQLITE_FILE: tmp.file('fresh-node.db'),
        LEAF_LOG_LEVEL: 'warn',
      },
      timeoutMs: 60_000,
    });
    try {
      const out = execFileSync('npm', ['start', '--silent'], {
        cwd: project,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...cleanEnv(), LEAF_URLS: node.url } as unknown as NodeJS.ProcessEnv,
      });
      expectExampleRun(out, 2n);
    } finally {
      await node.stop();
    }
  },
);

it(
  'examples/embedded installs @leaf-ts/embedded by path and runs with plain node straight on a SQLite file',
  { timeout: 300_000 },
  async () => {
    const project = installExample('embedded');
    const file = tmp.file('example.db');
    const store = new SqliteStore({ file });
    await store.tags.createTag({ bizTag: 'orders', step: 1_000, maxId: 2 ** 40 });
    await store.close();

    // From the example's own folder: the migrations come from the installed package, not the working directory.
    expectExampleRun(
      execFileSync(process.execPath, ['index.mjs', `file:${file}`, 'orders'], {
        cwd: project,
        encoding: 'utf8',
        timeout: 60_000,
      }),
      2n ** 40n + 1n,
    );

    // A brand-new file: created, migrated and seeded with the demo tag, as `npm start` does; an unknown tag is a clear error.
    const fresh = execFileSync(process.execPath, ['index.mjs', path.join(tmp.path, 'fresh.db')], {
      cwd: project,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(fresh).toMatch(/first ID: 2\n/);
    let failed = '';
    try {
      execFileSync(process.execPath, ['index.mjs', `file:${file}`, 'ghost'], {
        cwd: project,
        encoding: 'utf8',
        stdio: 'pipe',
        timeout: 60_000,
      });
    } catch (error) {
      failed = String((error as { stderr?: string }).stderr);
    }
    expect(failed).toMatch(/leaf-ts: tag_not_found: /);
  },
);
