/**
 * Who a process is, well enough that another process on the same machine can prove it dead: the kernel's boot id,
 * the pid namespace, the pid and the process's start time (Linux). A change to strict waits for every registered
 * process (docs/design.md#ordered-tags); one killed without a goodbye is removed by any process that can prove it
 * gone, never by a guess. Without /proc nothing is ever proven, and only an operator can forget such a process.
 */
import fs from 'node:fs';
import os from 'node:os';

export interface ProcIdentity {
  /** For people: the host name. */
  host: string;
  /** `linux:<boot id>:<pid ns>:<pid>:<start ticks>`, or `other:<host>:<pid>` where it cannot be proven. */
  procKey: string;
}

/** Reads a process's start time (clock ticks since boot, field 22 of /proc/<pid>/stat) and state; null: no such process. */
function statOf(pid: number): { state: string; startTicks: string } | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields after the last ')' are fixed.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  const startTicks = rest[19];
  return state === undefined || startTicks === undefined ? null : { state, startTicks };
}

function linuxPrefix(): string | null {
  try {
    const bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNs = fs.readlinkSync('/proc/self/ns/pid');
    return bootId.length > 0 && pidNs.length > 0 ? `linux:${bootId}:${pidNs}` : null;
  } catch {
    return null;
  }
}

export function thisProcess(): ProcIdentity {
  const host = os.hostname();
  const prefix = linuxPrefix();
  const stat = prefix === null ? null : statOf(process.pid);
  if (prefix === null || stat === null) return { host, procKey: `other:${host}:${process.pid}` };
  return { host, procKey: `${prefix}:${process.pid}:${stat.startTicks}` };
}

/**
 * True only when `procKey` names a process of this kernel and pid namespace that no longer runs: its pid is gone, a
 * zombie, or now another process (another start time). Anything else — another machine, another container, a key
 * this code cannot read — is not proven dead.
 */
export function provedDead(procKey: string): boolean {
  const prefix = linuxPrefix();
  if (prefix === null || !procKey.startsWith(`${prefix}:`)) return false;
  const [pidText, startTicks] = procKey.slice(prefix.length + 1).split(':');
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0 || startTicks === undefined) return false;
  const stat = statOf(pid);
  return stat === null || stat.state === 'Z' || stat.startTicks !== startTicks;
}
