// `npm run build:client` (and `prepare`, so `npm install` runs it): compiles lib/client and lib/embedded to dist/ —
// the JavaScript and .d.ts behind `leaf-ts/client` and `leaf-ts/embedded` — with tsconfig.client.json, one build. It also runs when another project installs this
// checkout by path (`npm install ../leaf-ts`); if this checkout's own packages are not installed there is no tsc,
// and an already built dist/ is used as it is.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const entries = ['client', 'embedded'].map((entry) => path.join(root, 'dist', entry, 'index.js'));

let tsc;
try {
  tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  if (entries.every((built) => fs.existsSync(built))) {
    console.error('[leaf-ts] typescript is not installed here: using the dist/ already built');
    process.exit(0);
  }
  console.error(`[leaf-ts] cannot build leaf-ts/client and leaf-ts/embedded: run \`npm install\` in ${root} first (it needs the devDependency typescript)`);
  process.exit(1);
}
// A fresh dist/: a module moved in lib/ (store/sqlite.ts → store/sqlite/) must not be shadowed by its old build.
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.client.json')], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
