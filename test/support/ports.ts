import net from 'node:net';

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
    if (port !== 3306 && port > 0) return port;
  }
}
