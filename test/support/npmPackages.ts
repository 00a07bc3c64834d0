/**
 * The workspace packages (packages/*) as another project gets them: `npm pack` (whose `prepack` builds), the
 * tarball installed into an empty project, and what the compiled code requires. Real npm, real files.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../tools/harness';

export interface Packed {
  name: string;
  tarball: string;
  /** Bytes of the .tgz. */
  size: number;
  unpackedSize: number;
  files: string[];
}

/** `npm pack --workspaces` into `dest`: every package built by its own `prepack`, then packed. */
export function packWorkspaces(dest: string): Map<string, Packed> {
  const out = execFileSync('npm', ['pack', '--workspaces', '--json', '--pack-destination', dest], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
  const packs = JSON.parse(out) as Array<{
    name: string;
    filename: string;
    size: number;
    unpackedSize: number;
    files: Array<{ path: string }>;
  }>;
  return new Map(
    packs.map((p) => [
      p.name,
      {
        name: p.name,
        tarball: path.join(dest, p.filename),
        size: p.size,
        unpackedSize: p.unpackedSize,
        files: p.files.map((f) => f.path),
      },
    ]),
  );
}

export interface Installed {
  dir: string;
  /** Wall time of `npm install <tarball>` (reported, never asserted). */
  ms: number;
  /** Every package folder npm installed (its lockfile's entries), e.g. `node_modules/@leaf-ts/client`. */
  packages: string[];
  /** Bytes under node_modules/. */
  bytes: number;
}

/**
 * An empty project at `dir` (package.json = `manifest`) that installs `tarball` with `--strict-allow-scripts`: a
 * dependency's install script not approved by the project's `allowScripts` fails the install instead of warning.
 */
export function installTarball(
  dir: string,
  tarball: string,
  manifest: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Installed {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: path.basename(dir), version: '1.0.0', private: true, ...manifest }, null, 2),
  );
  const started = performance.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--strict-allow-scripts', tarball], {
    cwd: dir,
    stdio: 'pipe',
    timeout: 900_000,
    env: { ...process.env, ...env },
  });
  const ms = performance.now() - started;
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  return {
    dir,
    ms,
    packages: Object.keys(lock.packages).filter((key) => key !== ''),
    bytes: folderBytes(path.join(dir, 'node_modules')),
  };
}

/**
 * Environment for `npm install` under which better-sqlite3's install script (prebuild-install) finds a prebuilt
 * binary in `dir`, as it would download one on a machine with internet access, instead of compiling for ~2 minutes:
 * the one this checkout compiled, packed under the name prebuild-install looks for. Another version than the root's
 * finds no file and compiles, as before.
 */
export function betterSqlitePrebuild(dir: string): Record<string, string> {
  const root = path.join(REPO_ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-czf', path.join(dir, name), '-C', root, 'build/Release/better_sqlite3.node']);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

function folderBytes(dir: string): number {
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return bytes;
}

/** Every `require("…")` in the compiled .js files below `dir` (tsc's CommonJS output; dynamic imports become requires too). */
export function requiredSpecifiers(dir: string): string[] {
  const found = new Set<string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    for (const match of fs
      .readFileSync(path.join(entry.parentPath, entry.name), 'utf8')
      .matchAll(/\brequire\("([^"]+)"\)/g))
      found.add(match[1] as string);
  }
  return [...found].sort();
}

/** `drizzle-orm/mysql2` → `drizzle-orm`, `@scope/pkg/sub` → `@scope/pkg`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/** Runs the root's TypeScript over `files` in `dir`, as a consumer's `tsc` would (node16 resolution, no skipLibCheck). */
export function typeCheck(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const tsconfig = {
    compilerOptions: {
      module: 'node16',
      moduleResolution: 'node16',
      target: 'ES2022',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
      typeRoots: [path.join(REPO_ROOT, 'node_modules', '@types')],
    },
    files: Object.keys(files),
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], {
    cwd: dir,
    encoding: 'utf8',
    stdio: 'pipe',
    timeout: 120_000,
  });
}

/** Writes `name` in `dir` and runs it with plain `node`; its last stdout line is JSON. */
export function runScript(
  dir: string,
  name: string,
  text: string,
  env: Record<string, string> = {},
): Record<string, unknown> {
  fs.writeFileSync(path.join(dir, name), text);
  const out = execFileSync(process.execPath, [name], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as Record<string, unknown>;
}

/**
 * The same script for `require` (`.cjs`) and for `import` (`.mjs`): `main` and `errorClass` taken from `pkg` by
 * named import (a name the ES module face lacks fails at link time) or from require. The body runs in an async
 * function with `failure(call)` (what a call throws or rejects with) and returns `{ ids, error }`; the script prints
 * them as JSON with whether `main` and the error's class are the very ones `require` gives (one copy of each).
 */
export function scriptFor(
  format: 'cjs' | 'mjs',
  pkg: string,
  [main, errorClass]: [string, string],
  body: string,
): string {
  const load =
    format === 'cjs'
      ? `const required = require('${pkg}');\nconst { ${main}, ${errorClass} } = required;\n`
      : `import { createRequire } from 'node:module';\nimport { ${main}, ${errorClass} } from '${pkg}';\nconst required = createRequire(import.meta.url)('${pkg}');\n`;
  return `${load}
async function failure(call) {
  try {
    await call();
  } catch (caught) {
    return caught;
  }
}
(async () => {
${body}
})().then(({ ids, error }) => {
  const sameError = error instanceof ${errorClass} && error instanceof required.${errorClass};
  console.log(JSON.stringify({ ids: ids.map(String), code: error?.code, sameClass: ${main} === required.${main}, sameError }));
}, (error) => {
  console.error(error);
  process.exit(1);
});
`;
}

/** One line for the closing note: tarball size and files, install time, package count, node_modules size. */
export function describeInstall(packed: Packed, installed: Installed): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  return (
    `${packed.name}: tarball ${kb(packed.size)} (${packed.files.length} files, ${kb(packed.unpackedSize)} unpacked); ` +
    `npm install into an empty project ${(installed.ms / 1000).toFixed(1)} s, ${installed.packages.length} package(s), node_modules ${kb(installed.bytes)}`
  );
}
