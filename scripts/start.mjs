// `npm start` (package.json runs `exec node --max-semi-space-size=64 --import tsx scripts/start.mjs`): builds the Next
// app if it has never been built or its sources are newer than the build, then runs the server (fast lane + Next) in
// this same process. One process, so a stop signal reaches the server itself and nothing is left behind: `exec`
// replaces npm's shell, npm forwards SIGINT/SIGTERM to it, and should npm die (kill -9) the server notices its parent
// is gone and stops gracefully. `--no-build` (the systemd unit) refuses a missing or stale build instead of building;
// `--build-only` builds when stale and exits.
import { spawn } from 'node:child_process';
import cluster from 'node:cluster';
import fs from 'node:fs';
import path from 'node:path';
import { EXIT_CONFIG } from '../lib/exitCodes.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
// A self-hosted service reports no usage anywhere: Next's telemetry is off for the build and the server. Next turns
// it off for any non-empty value ("0" too); an operator who wants it on sets the variable to the empty string.
process.env.NEXT_TELEMETRY_DISABLED ??= '1';
/** How often the parent is looked at: a stop starts at most this long after npm was killed. */
const PARENT_POLL_MS = 500;

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

function buildIsStale() {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  if (!fs.existsSync(buildId)) return true;
  const sources = ['app', 'components', 'lib'].map((d) => newestMtime(path.join(root, d)));
  return Math.max(...sources) > fs.statSync(buildId).mtimeMs;
}

/** `next build`, as a child whose stop signals are passed on; exits this process when the build fails or is stopped. */
async function build() {
  console.error('[leaf-ts] building the app (first start or changed sources)…');
  const nextBin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
  const child = spawn(process.execPath, [nextBin, 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  let stoppedBy = null;
  const pass = (signal) => {
    stoppedBy ??= signal;
    child.kill(signal);
  };
  process.on('SIGINT', pass);
  process.on('SIGTERM', pass);
  const code = await new Promise((resolve) => child.once('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
  process.off('SIGINT', pass);
  process.off('SIGTERM', pass);
  if (stoppedBy !== null) process.exit(130);
  if (code !== 0) process.exit(code);
}

/** Whether `pid` is a live process. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Runs `fn` holding the checkout's build lock (a directory, made atomically): two starts in one checkout (two nodes on
 * one machine) must not run `next build` into the same .next at once. A lock whose owner is gone is taken over.
 */
async function withBuildLock(fn) {
  const lock = path.join(root, '.next-build.lock');
  const owner = path.join(lock, 'pid');
  let said = false;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(owner, String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const pid = Number(fs.existsSync(owner) ? fs.readFileSync(owner, 'utf8') : 0);
    if (pid > 0 && !alive(pid)) {
      fs.rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (!said)
      console.error(`[leaf-ts] waiting for the build another start is running${pid > 0 ? ` (PID ${pid})` : ''}…`);
    said = true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  try {
    await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** npm (or whatever started us) died without passing a signal on: stop as if told to, so no server is left behind. */
function stopWithParent() {
  const parent = process.ppid;
  if (parent <= 1) return; // started by init or a supervisor that is PID 1: it stays
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    console.error(
      JSON.stringify({ t: new Date().toISOString(), level: 'warn', event: 'launcher_gone', parent, stop: 'SIGTERM' }),
    );
    process.kill(process.pid, 'SIGTERM');
  }, PARENT_POLL_MS);
  timer.unref();
}

// Cluster workers (LEAF_WORKERS=N) run this file again: the primary has built and watches its own parent.
if (cluster.isPrimary) {
  if (buildIsStale()) {
    if (process.argv.includes('--no-build')) {
      console.error(
        `leaf-ts: cannot start: the app in ${root} is not built or its sources are newer than the build; run \`npm run build\` there first`,
      );
      process.exit(EXIT_CONFIG);
    }
    await withBuildLock(async () => {
      if (buildIsStale()) await build(); // the start we waited for may have built it
    });
  }
  if (process.argv.includes('--build-only')) process.exit(0); // `npm run test:quick`: a fresh build, no server
  stopWithParent();
}
process.env.NODE_ENV = 'production';
await import('../server.ts');
