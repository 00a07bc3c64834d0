// `npm start`: builds the Next app if it has never been built or the sources are newer than the build,
// then runs the custom server (fast lane + Next) in production mode.
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const serverNodeFlags = createRequire(import.meta.url)('./serverNodeFlags.cjs');

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const buildId = path.join(root, '.next', 'BUILD_ID');

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

const sources = ['app', 'components', 'lib'].map((d) => newestMtime(path.join(root, d)));
const stale = !fs.existsSync(buildId) || Math.max(...sources) > fs.statSync(buildId).mtimeMs;
if (stale) {
  console.error('[leaf-ts] building the app (first start or changed sources)…');
  const r = spawnSync('npx', ['next', 'build'], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const child = spawn(process.execPath, [...serverNodeFlags, '--import', 'tsx', 'server.ts'], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
