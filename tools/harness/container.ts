/**
 * Containers with Debian's podman, for building and running the project's Dockerfile as a user would.
 *
 * Every run starts from nothing: a `Podman` keeps its images, layers and containers in a storage root of its own
 * (a fresh directory, removed at the end), so the base image is made and the Dockerfile built from empty each time —
 * the path a new machine takes, never one a cache can hide.
 *
 * No image registry is reachable here, so the Dockerfile's base (`node:20-bookworm-slim`) is stood in for by an image
 * made on this machine: Debian bookworm (debootstrap, minbase) with this machine's Node 20 — the binary, npm and the
 * headers at the official image's paths (/usr/local) — and its `node` user (uid 1000). The machine's own limits are
 * passed as flags, never written into the Dockerfile: crun refuses this kernel's hybrid cgroups (runc runs), raising
 * a resource limit is not permitted (the current ones are passed), and the npm registry is reached through a TLS
 * proxy whose CA is in NODE_EXTRA_CA_CERTS (mounted for the build's npm).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type Log, aptInstall, findExecutable } from './apt';
import { onExit } from './exitHooks';

export const BASE_IMAGE = 'localhost/leaf-ts-test/node:20-bookworm-slim';
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';
/** Output kept from a podman command (its progress on failure); the image itself never passes through Node. */
const OUTPUT_BYTES = 64 * 2 ** 20;

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
function machineFlags(): string[] {
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

export interface Container {
  id: string;
  /** `podman stop --time`: SIGTERM (the image's STOPSIGNAL), SIGKILL after `seconds`. */
  stop(seconds: number): void;
  exitCode(): number;
  logs(): string;
  remove(): void;
}

/** podman on a storage root of its own under `dir` (made empty); `destroy()` removes every image and layer in it. */
export class Podman {
  private readonly storage: string[];
  private readonly unregister: () => void;

  constructor(readonly dir: string) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    this.storage = ['--root', path.join(dir, 'root'), '--runroot', path.join(dir, 'run'), '--tmpdir', dir];
    this.unregister = onExit(() => this.destroy());
  }

  private podman(args: string[], timeout = 120_000): string {
    return execFileSync('podman', [...this.storage, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout,
      maxBuffer: OUTPUT_BYTES,
    });
  }

  /** The stand-in for node:20-bookworm-slim (see the header): 1–3 minutes, most of it debootstrap's downloads. */
  makeBaseImage(log: Log): void {
    const rootfs = path.join(this.dir, 'base-rootfs');
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
      log(`importing ${BASE_IMAGE} (tar streamed into podman import)…`);
      // The tree goes from tar to podman through a pipe: a few hundred MB never held in this process.
      const changes = [
        '--change',
        'CMD ["node"]',
        '--change',
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      ];
      const imported = spawnSync(
        'bash',
        [
          '-o',
          'pipefail',
          '-c',
          'tar -C "$1" -c . | podman "${@:2}"',
          'import-rootfs',
          rootfs,
          ...this.storage,
          'import',
          ...changes,
          '-',
          BASE_IMAGE,
        ],
        { encoding: 'utf8', timeout: 600_000, maxBuffer: OUTPUT_BYTES },
      );
      if (imported.status !== 0)
        throw new Error(
          `podman import of ${BASE_IMAGE} failed (${imported.status ?? imported.signal}): ${imported.stderr.slice(-4_000)}`,
        );
      log(`${BASE_IMAGE} made`);
    } finally {
      fs.rmSync(rootfs, { recursive: true, force: true });
    }
  }

  /** `podman build` of `dir`'s Dockerfile on the stand-in base, tagged `tag`; its output on failure. */
  build(dir: string, tag: string, scratch: string): void {
    try {
      this.podman(
        ['build', ...machineFlags(), ...buildFlags(scratch), '--build-arg', `NODE_IMAGE=${BASE_IMAGE}`, '-t', tag, dir],
        1_200_000,
      );
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      throw new Error(`podman build failed:\n${(e.stdout ?? '').slice(-6_000)}\n${(e.stderr ?? '').slice(-4_000)}`, {
        cause: error,
      });
    }
  }

  /** `podman run -d` of `image` with `env`; removed by `destroy()` at the latest. */
  run(image: string, env: Record<string, string>): Container {
    const id = this.podman([
      'run',
      '-d',
      ...machineFlags(),
      ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      image,
    ]).trim();
    return {
      id,
      stop: (seconds) => void this.podman(['stop', '--time', String(seconds), id], (seconds + 30) * 1000),
      exitCode: () => Number(this.podman(['inspect', id, '--format', '{{.State.ExitCode}}']).trim()),
      logs: () => {
        const r = spawnSync('podman', [...this.storage, 'logs', id], { encoding: 'utf8', maxBuffer: OUTPUT_BYTES });
        return `${r.stdout}${r.stderr}`; // the server logs on stderr
      },
      remove: () => void this.podman(['rm', '-f', id]),
    };
  }

  /** Every container stopped, every image and layer removed with the storage root. */
  destroy(): void {
    this.unregister();
    spawnSync('podman', [...this.storage, 'rm', '-a', '-f', '-t', '0'], { stdio: 'ignore', timeout: 60_000 });
    spawnSync('podman', [...this.storage, 'rmi', '-a', '-f'], { stdio: 'ignore', timeout: 120_000 });
    // A layer podman left mounted (a crash mid-build) would stop the removal: unmount what lies below the root first.
    const mounts = fs
      .readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[1] ?? '');
    for (const mount of mounts.filter((m) => m.startsWith(`${this.dir}/`)).reverse())
      spawnSync('umount', ['-l', mount], { stdio: 'ignore' });
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
