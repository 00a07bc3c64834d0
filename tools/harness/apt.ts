/**
 * Debian packages the harness needs (mariadb-server, redis-server, chromium): found on PATH or in the usual
 * system directories, else installed with apt-get (needs root). A package's postinst may start a system-wide
 * service (MariaDB on 3306, Redis on 6379); we never want one, so a policy-rc.d forbidding service starts (Debian's
 * standard switch) is put in place for the install only, and only when none exists.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type Log = (line: string) => void;

const SEARCH_DIRS = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/usr/libexec'];
const POLICY_RC_D = '/usr/sbin/policy-rc.d';

/** The first of `names` that is an executable file on PATH or in the system directories. */
export function findExecutable(names: string[]): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), ...SEARCH_DIRS];
  for (const name of names) {
    for (const dir of dirs) {
      const candidate = path.join(dir, name);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      } catch {
        // keep looking
      }
    }
  }
  return undefined;
}

/** `apt-get update` then `apt-get install -y <packages>`, with service starts forbidden during the install. */
export function aptInstall(packages: string[], log: Log): void {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const addedPolicy = !fs.existsSync(POLICY_RC_D);
  try {
    if (addedPolicy) fs.writeFileSync(POLICY_RC_D, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    log('apt-get update…');
    execFileSync('apt-get', ['-q', 'update'], { stdio: ['ignore', 'inherit', 'inherit'], env, timeout: 300_000 });
    log(`apt-get install -y ${packages.join(' ')} (a few minutes at most)…`);
    execFileSync('apt-get', ['-q', 'install', '-y', ...packages], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env,
      timeout: 600_000,
    });
  } catch (error) {
    throw new Error(
      `Could not install ${packages.join(' ')} with apt-get (are you root, is the Debian mirror reachable?): ${String(error)}`,
      { cause: error },
    );
  } finally {
    if (addedPolicy) fs.rmSync(POLICY_RC_D, { force: true });
  }
}

/**
 * What `find` returns; when it returns nothing, installs Debian's `pkg` first (logging what happens) and asks again.
 */
export function ensurePackage<T>(pkg: string, find: () => T | undefined, log: Log): T {
  const found = find();
  if (found !== undefined) return found;
  log(`${pkg} is not installed: installing it from Debian packages (apt-get update, apt-get install)…`);
  const started = Date.now();
  aptInstall([pkg], log);
  const installed = find();
  if (installed === undefined) throw new Error(`${pkg} was installed but what it provides is still not found`);
  log(`installed ${pkg} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return installed;
}
