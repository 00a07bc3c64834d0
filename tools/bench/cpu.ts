/**
 * CPU accounting: machine-wide busy time (/proc/stat), the CPU time of a server, its cluster workers and its
 * database (/proc/PID/stat), and this process's (the load generator's).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from './servers';

export const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
export const US_PER_TICK = 1e6 / CLK_TCK;

export interface CpuSnap {
  wallUs: number;
  busyUs: number;
  serverUs: number;
  benchUs: number;
}

/** A process and everything it started (cluster workers), from /proc/PID/task/TID/children. */
export function withDescendants(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const tid of fs.readdirSync(`/proc/${out[i]}/task`)) {
        const kids = fs.readFileSync(`/proc/${out[i]}/task/${tid}/children`, 'utf8').trim();
        if (kids !== '') for (const k of kids.split(/\s+/)) out.push(Number(k));
      }
    } catch {
      // gone, or not Linux
    }
  }
  return out;
}

/** The processes whose CPU is the server's in a row: the server, its cluster workers, its database (a postmaster with its backends). */
export function serverPids(server: Server): number[] {
  return server.child.pid === undefined
    ? []
    : [...withDescendants(server.child.pid), ...server.dbPids.flatMap(withDescendants)];
}

/** Machine-wide busy time (/proc/stat), the server's CPU time (/proc/PID/stat, summed over `pids`) and this process's, in µs. */
export function cpuSnap(pids: number[]): CpuSnap {
  let busyUs = NaN;
  let serverUs = pids.length === 0 ? NaN : 0;
  try {
    const cpuLine = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const f = cpuLine.trim().split(/\s+/).slice(1).map(Number);
    const [user = NaN, nice = NaN, system = NaN, idle, iowait, irq = NaN, softirq = NaN, steal = NaN] = f;
    busyUs = (user + nice + system + irq + softirq + steal) * US_PER_TICK;
    void idle;
    void iowait;
    for (const pid of pids) {
      const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = st.slice(st.lastIndexOf(')') + 2).split(' ');
      serverUs += (Number(fields[11]) + Number(fields[12])) * US_PER_TICK;
    }
  } catch {
    // not Linux (or a process gone): CPU columns stay empty
    serverUs = NaN;
  }
  const u = process.cpuUsage();
  return { wallUs: performance.now() * 1000, busyUs, serverUs, benchUs: u.user + u.system };
}
