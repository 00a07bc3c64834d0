/** Processes as Linux's /proc lists them: one reader of `/proc/<pid>/stat` for the harness. */
import fs from 'node:fs';

export interface ProcStat {
  pid: number;
  /** One letter: R, S, D, Z (zombie), … */
  state: string;
  ppid: number;
  pgrp: number;
}

/** Every PID in /proc now (some may be gone by the time they are read). */
export function procPids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^[0-9]+$/.test(entry))
    .map(Number);
}

/** The process's state, parent and group; undefined once it is gone. */
export function procStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ')'.
  const [state = '', ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, state, ppid: Number(ppid), pgrp: Number(pgrp) };
}
