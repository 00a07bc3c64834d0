/** Free TCP ports on 127.0.0.1 (never 3306, MariaDB's default: a system-wide server may want it). */
import { execFileSync } from 'node:child_process';
import net from 'node:net';

const MYSQL_DEFAULT_PORT = 3306;

/** A TCP port that was free a moment ago; never 3306. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = net.createServer();
      server.unref();
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        const p = typeof address === 'object' && address !== null ? address.port : 0;
        server.close(() => resolve(p));
      });
    });
    if (port !== MYSQL_DEFAULT_PORT && port > 0) return port;
  }
}

/**
 * freePort() for synchronous callers (a Playwright config is loaded synchronously): asks a short-lived Node
 * process, which binds port 0 on 127.0.0.1 and prints what it got.
 */
export function freePortSync(): number {
  const script =
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  for (;;) {
    const port = Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim());
    if (port !== MYSQL_DEFAULT_PORT && port > 0) return port;
  }
}
