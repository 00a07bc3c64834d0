/**
 * Who listens on a port, from Linux's /proc: a health check that got its 200 from another process (one that took
 * the port between our free-port check and our server's bind) must not count as our server being up.
 */
import fs from 'node:fs';
import { procPids, procStat } from './procStat';

/** Whether `pid` or one of its descendants holds the socket listening on `port`; true where /proc cannot tell. */
export function listensOn(pid: number, port: number): boolean {
  const inodes = listeningInodes(port);
  if (inodes === undefined) return true;
  if (inodes.size === 0) return false;
  return holders(inodes).some((holder) => holder === pid || descendsFrom(holder, pid));
}

/** Inodes of the sockets in LISTEN state on `port` (IPv4 and IPv6); undefined without /proc/net. */
function listeningInodes(port: number): Set<string> | undefined {
  const suffix = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  let readAny = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
      readAny = true;
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state === '0A' && local?.endsWith(suffix) && inode !== undefined) inodes.add(inode);
    }
  }
  return readAny ? inodes : undefined;
}

/** The processes with one of `inodes` among their open files. */
function holders(inodes: Set<string>): number[] {
  return procPids().filter((pid) => {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      return false; // gone, or not ours to read
    }
    return fds.some((fd) => {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        return inode !== undefined && inodes.has(inode);
      } catch {
        return false; // closed meanwhile
      }
    });
  });
}

function descendsFrom(pid: number, ancestor: number): boolean {
  for (let current = procStat(pid)?.ppid ?? 0, hops = 0; current > 0 && hops < 64; hops++) {
    if (current === ancestor) return true;
    current = procStat(current)?.ppid ?? 0;
  }
  return false;
}
