/**
 * Process groups, for starting leaf-ts as a user or a supervisor does (a terminal gives `npm start` a group of its
 * own; systemd a cgroup) and checking that a stop leaves no process of it behind. Linux /proc only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { onExit } from './exitHooks';
import { procPids, procStat } from './procStat';
import { sleep } from './wait';

/** The PIDs whose process group is `pgid` (read from /proc/<pid>/stat), zombies left out. */
export function groupPids(pgid: number): number[] {
  return procPids().filter((pid) => {
    const stat = procStat(pid);
    return stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z';
  });
}

/** A process's command line, for messages ("" once it is gone). */
export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Waits until no process of group `pgid` is left; the PIDs still there after `ms` ([] when it emptied). */
export async function waitGroupGone(pgid: number, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = groupPids(pgid);
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(50);
  }
}

/** Sends `signal` to the whole group, as a terminal's Ctrl-C does; a group already gone is fine. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Spawns `command` as the leader of a new process group (setsid, as a terminal or a supervisor starts a job), with
 * stdin closed and output piped. Whatever of the group is left when this process exits is SIGKILLed.
 */
export function spawnGroup(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): ChildProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pgid = child.pid;
  if (pgid !== undefined) {
    const unregister = onExit(() => {
      if (groupPids(pgid).length > 0) signalGroup(pgid, 'SIGKILL');
    });
    child.once('exit', () => {
      // The leader is gone; its group may not be (that is what the callers check), so the hook stays until it is.
      void waitGroupGone(pgid, 60_000).then((left) => left.length === 0 && unregister());
    });
  }
  return child;
}
