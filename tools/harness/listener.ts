/**
 * Who listens on a port, from Linux's /proc: a health check that got its 200 from another process (one that took
 * the port between our free-port check and our server's bind) must not count as our server being up.
 */
import fs from 'node:fs';

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
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = fs.readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode !== undefined && inodes.has(inode)) {
        found.push(Number(entry));
        break;
      }
    }
  }
  return found;
}

function descendsFrom(pid: number, ancestor: number): boolean {
  for (let current = pid, hops = 0; current > 1 && hops < 64; hops++) {
    current = parentOf(current);
    if (current === ancestor) return true;
  }
  return false;
}

function parentOf(pid: number): number {
  try {
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after its last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}
