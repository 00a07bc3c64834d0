/**
 * Free TCP ports on 127.0.0.1 for the throwaway servers, chosen below the kernel's ephemeral range. A port from that
 * range (what binding port 0 hands out) can be taken a moment later as the source port of any outgoing connection; a
 * server restarted on its old port (a Galera node rejoining, a node started again) then fails to bind. Never 3306,
 * MariaDB's default: a system-wide server may want it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

const MYSQL_DEFAULT_PORT = 3306;
/** Above the well-known and most registered service ports. */
const LOWEST = 10_000;
const TRIES = 200;

/** [first, last] of the ports no outgoing connection takes: from LOWEST up to the ephemeral range. */
export function portRange(): [number, number] {
  let ephemeralLow = 32_768;
  try {
    const first = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > LOWEST + 1_000) ephemeralLow = first;
  } catch {
    // not Linux: keep the usual default
  }
  return [LOWEST, ephemeralLow - 1];
}

function candidate(): number {
  const [first, last] = portRange();
  const port = first + Math.floor(Math.random() * (last - first + 1));
  return port === MYSQL_DEFAULT_PORT ? candidate() : port;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port that was free a moment ago, outside the ephemeral range; never 3306. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < TRIES; i++) {
    const port = candidate();
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${portRange().join('–')} after ${TRIES} tries`);
}

/**
 * freePort() for synchronous callers (a Playwright config is loaded synchronously): a short-lived Node process tries
 * the candidates and prints the first it could bind.
 */
export function freePortSync(): number {
  const candidates = Array.from({ length: 20 }, candidate);
  const script = `const net=require('net');const c=${JSON.stringify(candidates)};
const next=()=>{const p=c.shift();if(p===undefined){process.exitCode=1;return}
const s=net.createServer();s.once('error',next);s.listen(p,'127.0.0.1',()=>{process.stdout.write(String(p));s.close()})};next()`;
  for (let i = 0; i < TRIES / 20; i++) {
    try {
      const port = Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim());
      if (port > 0) return port;
    } catch {
      // all twenty taken: try twenty others
    }
  }
  throw new Error(`no free port in ${portRange().join('–')}`);
}
