/**
 * Processes found by a marker in their environment, for servers that fork trees we do not parent: Patroni starts
 * postgres in a session of its own (setsid), and postgres forks a backend per connection. Every such process
 * descends from the one we spawned, which carries `LEAF_HARNESS_MARK=<marker>` in its environment (inherited by
 * Patroni and the postmaster); so a marked process and its descendants are exactly ours, and each is signalled by
 * its own PID. Linux /proc only; zombies are never listed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { procPids, procStat } from './procStat';
import { sleep } from './wait';

export const MARK_VARIABLE = 'LEAF_HARNESS_MARK';

/** The environment entry for `marker`: "LEAF_HARNESS_MARK=<marker>". */
export function markEntry(marker: string): string {
  return `${MARK_VARIABLE}=${marker}`;
}

/** A minimal environment (PATH and `extra`) carrying `marker`, for a process whose whole tree we must find later. */
export function markedEnv(marker: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra, [MARK_VARIABLE]: marker };
  return env as NodeJS.ProcessEnv;
}

interface ProcEntry {
  pid: number;
  ppid: number;
  environ: string;
}

/** Every live (non-zombie) process: PID, parent PID and environment ("" when unreadable). */
function processTable(): ProcEntry[] {
  const table: ProcEntry[] = [];
  for (const pid of procPids()) {
    const stat = procStat(pid);
    if (stat === undefined || stat.state === 'Z') continue; // gone meanwhile, or a zombie
    let environ = '';
    try {
      environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      // a kernel thread, or gone meanwhile
    }
    table.push({ pid, ppid: stat.ppid, environ: `\0${environ}` });
  }
  return table;
}

/**
 * PIDs of live processes whose environment has LEAF_HARNESS_MARK equal to `marker` (or starting with it, when
 * `prefix`: a cluster's marker prefixes its nodes'), and of all their descendants — postgres's children overwrite
 * their environment with their process title, so they are found as children of a marked postmaster or reaper.
 */
export function markedPids(
  marker: string,
  { prefix = false, except = [] }: { prefix?: boolean; except?: number[] } = {},
): number[] {
  const wanted = `\0${markEntry(marker)}`;
  const table = processTable();
  const found = new Set<number>();
  for (const p of table) {
    const at = p.environ.indexOf(wanted);
    const next = p.environ[at + wanted.length];
    if (at >= 0 && (prefix || next === '\0' || next === undefined)) found.add(p.pid);
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table) {
      if (!found.has(p.pid) && found.has(p.ppid)) {
        found.add(p.pid);
        grew = true;
      }
    }
  }
  return [...found].filter((pid) => !except.includes(pid));
}

/** SIGKILL to each PID (one already gone is fine). */
export function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
}

/**
 * SIGKILLs every marked process (but `except`) until none is left — a postmaster may fork a new child between the
 * scan and the signal — and resolves with what is still there after `timeoutMs` ([] when all are gone).
 */
export async function killMarked(
  marker: string,
  timeoutMs: number,
  options: { prefix?: boolean; except?: number[] } = {},
): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = markedPids(marker, options);
    if (left.length === 0 || Date.now() > deadline) return left;
    killPids(left);
    await sleep(50);
  }
}

const WATCHDOG = `
const [ownerPid, wanted, dirs] = [process.argv[1], '\\0' + process.argv[2], process.argv.slice(3)];
const fs = require('fs');
const alive = (p) => { try { process.kill(+p, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const marked = () => {
  const table = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(e) || +e === process.pid) continue;
    try {
      const stat = fs.readFileSync('/proc/' + e + '/stat', 'utf8');
      const ppid = +stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
      let env = '';
      try { env = fs.readFileSync('/proc/' + e + '/environ', 'latin1'); } catch {}
      table.push({ pid: +e, ppid, mine: ('\\0' + env).includes(wanted) });
    } catch {}
  }
  const found = new Set(table.filter((p) => p.mine).map((p) => p.pid));
  for (let grew = true; grew; ) { grew = false; for (const p of table) if (!found.has(p.pid) && found.has(p.ppid)) { found.add(p.pid); grew = true; } }
  return [...found];
};
const timer = setInterval(() => {
  if (!dirs.some((d) => fs.existsSync(d))) { clearInterval(timer); return; }
  if (alive(ownerPid)) return;
  clearInterval(timer);
  for (let round = 0; round < 20; round++) {
    const pids = marked();
    if (pids.length === 0) break;
    for (const p of pids) { try { process.kill(+p, 'SIGKILL'); } catch {} }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
  for (const d of dirs) { try { fs.rmSync(d, { recursive: true, force: true }); } catch {} }
}, 1000);
`;

/**
 * A detached Node process that, should we die without cleaning up, SIGKILLs every process marked with `marker`
 * or a marker starting with it, then removes `dirs`. It leaves by itself once `dirs` are all gone (a normal destroy).
 */
export function spawnMarkedWatchdog(marker: string, dirs: string[]): void {
  spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), markEntry(marker), ...dirs], {
    detached: true,
    stdio: 'ignore',
  }).unref();
}
