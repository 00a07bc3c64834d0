/** The Next build the plain-Next rows need (made when missing or lacking the bench route), and the git revision. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { HARD_CAP_MS, ROOT, progress, sleep } from './config';

export const CONSTANT_ROUTE_BUILD = path.join(ROOT, '.next', 'server', 'app', 'api', 'bench', 'constant', 'route.js');

export async function ensureBuild(): Promise<string> {
  const buildId = path.join(ROOT, '.next', 'BUILD_ID');
  const nextDir = path.join(ROOT, '.next');
  // A `next build` started elsewhere (npm test, npm start) removes BUILD_ID until it finishes: wait for it, don't race it.
  if (!fs.existsSync(buildId) && fs.existsSync(nextDir) && Date.now() - fs.statSync(nextDir).mtimeMs < 120_000) {
    progress(
      'build: .next/BUILD_ID missing but .next changed in the last 2 min (a build running elsewhere?); waiting up to 120 s',
    );
    const until = Date.now() + 120_000;
    while (!fs.existsSync(buildId) && Date.now() < until) await sleep(1_000);
  }
  const lacksRoute = fs.existsSync(buildId) && !fs.existsSync(CONSTANT_ROUTE_BUILD);
  if (!fs.existsSync(buildId) || process.env.BENCH_REBUILD === '1' || lacksRoute) {
    progress(
      `build: ${lacksRoute ? '.next lacks app/api/bench/constant' : '.next/BUILD_ID missing (or BENCH_REBUILD=1)'}; running \`npx next build\` (counts against the ${HARD_CAP_MS / 60_000}-min cap)`,
    );
    const r = spawnSync('npx', ['next', 'build'], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    if (r.status !== 0) throw new Error(`next build failed (${r.status ?? r.signal})`);
    progress('build: done');
    return `built by this run (${fs.readFileSync(buildId, 'utf8').trim()})`;
  }
  const id = fs.readFileSync(buildId, 'utf8').trim();
  const builtAt = fs.statSync(buildId).mtimeMs;
  const newer = newestMtime(
    ['app', 'components', 'lib', 'proxy.ts', 'middleware.ts', 'next.config.js'].map((d) => path.join(ROOT, d)),
  );
  if (newer.mtime > builtAt) {
    progress(
      `build: WARNING .next is older than ${path.relative(ROOT, newer.file)}; the plain-Next rows run the old build (BENCH_REBUILD=1 to rebuild)`,
    );
    return `${id}, older than sources (${path.relative(ROOT, newer.file)} changed later)`;
  }
  progress(`build: .next/BUILD_ID present (${id}), up to date`);
  return `${id}, up to date`;
}

export function newestMtime(paths: string[]): { mtime: number; file: string } {
  let best = { mtime: 0, file: '' };
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    if (!fs.statSync(dir).isDirectory()) {
      const m = fs.statSync(dir).mtimeMs;
      if (m > best.mtime) best = { mtime: m, file: dir };
      return;
    }
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const m = fs.statSync(p).mtimeMs;
        if (m > best.mtime) best = { mtime: m, file: p };
      }
    }
  };
  paths.forEach(walk);
  return best;
}

export function gitDescribe(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const dirty = spawnSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return head ? `git ${head}${dirty ? ' + uncommitted changes' : ''}` : 'not a git checkout';
}
