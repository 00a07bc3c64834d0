/**
 * Containers with Debian's podman, for building and running the project's Dockerfile as a user would.
 *
 * No image registry is reachable here, so the Dockerfile's base (`node:20-bookworm-slim`) is stood in for by an image
 * made on this machine: Debian bookworm (debootstrap, minbase) with this machine's Node 20 — the binary, npm and the
 * headers at the official image's paths (/usr/local) — and its `node` user (uid 1000). Made once, kept under
 * BASE_IMAGE. The machine's own limits are passed as flags, never written into the Dockerfile: crun refuses this
 * kernel's hybrid cgroups (runc runs), raising a resource limit is not permitted (the current ones are passed), and
 * the npm registry is reached through a TLS proxy whose CA is in NODE_EXTRA_CA_CERTS (mounted for the build's npm).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Log, aptInstall, findExecutable } from './apt';
import { onExit } from './exitHooks';

export const BASE_IMAGE = 'localhost/leaf-ts-test/node:20-bookworm-slim';
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';

function podman(args: string[], options: { timeout?: number; input?: Buffer } = {}): string {
  return execFileSync('podman', args, {
    encoding: 'utf8',
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    timeout: options.timeout ?? 120_000,
    input: options.input,
    maxBuffer: 64 << 20,
  });
}

/** podman, runc and debootstrap, installed from Debian when missing. */
export function ensurePodman(log: Log): void {
  const tools: Array<[bin: string, pkg: string]> = [
    ['podman', 'podman'],
    ['runc', 'runc'],
    ['debootstrap', 'debootstrap'],
  ];
  const missing = tools.filter(([bin]) => findExecutable([bin]) === undefined);
  if (missing.length > 0) {
    log(`installing ${missing.map(([, pkg]) => pkg).join(', ')} from Debian packages…`);
    aptInstall(
      missing.map(([, pkg]) => pkg),
      log,
    );
  }
}

/** The flags every podman build and run gets on this machine (see the header). */
export function machineFlags(): string[] {
  const limits = fs.readFileSync('/proc/self/limits', 'utf8');
  // "Max open files            20000                20000                files": soft and hard, as they are now.
  const limit = (name: string) => {
    const [soft, hard] = new RegExp(`^${name}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(limits)?.slice(1) ?? [];
    if (soft === undefined || hard === undefined) throw new Error(`no "${name}" in /proc/self/limits`);
    return `${soft === 'unlimited' ? -1 : soft}:${hard === 'unlimited' ? -1 : hard}`;
  };
  // Even the current process limit counts as raising it for runc here; a lower one is always allowed, and plenty.
  return [
    '--runtime',
    'runc',
    '--network',
    'host',
    '--ulimit',
    `nofile=${limit('Max open files')}`,
    '--ulimit',
    'nproc=4096:4096',
  ];
}

/** Build-only flags: the TLS proxy's CA for npm inside the build, when this machine has one. */
function buildFlags(scratch: string): string[] {
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  if (ca === undefined || !fs.existsSync(ca)) return [];
  const npmrc = path.join(scratch, 'npmrc');
  fs.writeFileSync(npmrc, `cafile=${ca}\n`);
  return ['--volume', `${path.dirname(ca)}:${path.dirname(ca)}:ro`, '--volume', `${npmrc}:/root/.npmrc:ro`];
}

export function imageExists(image: string): boolean {
  try {
    podman(['image', 'exists', image]);
    return true;
  } catch {
    return false;
  }
}

/** The stand-in for node:20-bookworm-slim (see the header); a few minutes the first time, then kept. */
export function ensureBaseImage(log: Log): void {
  if (imageExists(BASE_IMAGE)) return;
  const rootfs = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-base-rootfs-'));
  try {
    log(`making ${BASE_IMAGE}: debootstrap bookworm (minbase) into ${rootfs} (1–2 min)…`);
    execFileSync('debootstrap', ['--variant=minbase', 'bookworm', rootfs, DEBIAN_MIRROR], {
      stdio: 'ignore',
      timeout: 900_000,
    });
    const prefix = path.resolve(path.dirname(process.execPath), '..');
    const local = path.join(rootfs, 'usr', 'local');
    fs.mkdirSync(path.join(local, 'bin'), { recursive: true });
    fs.copyFileSync(process.execPath, path.join(local, 'bin', 'node'));
    fs.cpSync(path.join(prefix, 'include', 'node'), path.join(local, 'include', 'node'), { recursive: true });
    const npmRoot = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
    fs.cpSync(path.join(npmRoot, 'npm'), path.join(local, 'lib', 'node_modules', 'npm'), { recursive: true });
    fs.symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(local, 'bin', 'npm'));
    fs.symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', path.join(local, 'bin', 'npx'));
    execFileSync('chroot', [
      rootfs,
      'sh',
      '-c',
      'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node && rm -rf /var/cache/apt/archives/*.deb /var/lib/apt/lists/*',
    ]);
    const tar = execFileSync('tar', ['-C', rootfs, '-c', '.'], { maxBuffer: 2 << 30 });
    podman(
      [
        'import',
        '--change',
        'CMD ["node"]',
        '--change',
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '-',
        BASE_IMAGE,
      ],
      { input: tar, timeout: 300_000 },
    );
    log(`${BASE_IMAGE} made`);
  } finally {
    fs.rmSync(rootfs, { recursive: true, force: true });
  }
}

/** `podman build` of `dir`'s Dockerfile on the stand-in base, tagged `tag`; its output on failure. */
export function buildImage(dir: string, tag: string, scratch: string): void {
  try {
    podman(
      ['build', ...machineFlags(), ...buildFlags(scratch), '--build-arg', `NODE_IMAGE=${BASE_IMAGE}`, '-t', tag, dir],
      { timeout: 1_200_000 },
    );
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`podman build failed:\n${(e.stdout ?? '').slice(-6_000)}\n${(e.stderr ?? '').slice(-4_000)}`, {
      cause: error,
    });
  }
}

export interface Container {
  id: string;
  /** `podman stop --time`: SIGTERM (the image's STOPSIGNAL), SIGKILL after `seconds`. */
  stop(seconds: number): void;
  exitCode(): number;
  logs(): string;
  remove(): void;
}

/** `podman run -d` of `image` with `env`; removed by the exit hook if still there. */
export function runContainer(image: string, env: Record<string, string>): Container {
  const id = podman([
    'run',
    '-d',
    ...machineFlags(),
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    image,
  ]).trim();
  const unregister = onExit(() => {
    try {
      execFileSync('podman', ['rm', '-f', '-t', '0', id], { stdio: 'ignore' });
    } catch {
      // best effort
    }
  });
  return {
    id,
    stop: (seconds) => void podman(['stop', '--time', String(seconds), id], { timeout: (seconds + 30) * 1000 }),
    exitCode: () => Number(podman(['inspect', id, '--format', '{{.State.ExitCode}}']).trim()),
    logs: () => {
      const r = spawnSync('podman', ['logs', id], { encoding: 'utf8', maxBuffer: 64 << 20 });
      return `${r.stdout}${r.stderr}`; // the server logs on stderr
    },
    remove: () => {
      podman(['rm', '-f', id]);
      unregister();
    },
  };
}
