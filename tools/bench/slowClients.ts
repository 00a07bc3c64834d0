/**
 * The slow-client attack of issue 38, held for as long as a row is measured: `count` connections, each sending a
 * login request's headers and 10 of its 100 declared body bytes, then nothing. A server that bounds a request's
 * arrival answers 408 and closes; the holder opens a new one at once, so `count` stay open all the time.
 */
import net from 'node:net';

const ATTACK =
  'POST /api/auth/login HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"token":"';

export interface SlowClients {
  /** Stops holding: every open connection is destroyed. */
  stop(): { opened: number; answered408: number; closedWithout408: number };
}

export function holdSlowClients(base: string, count: number): Promise<SlowClients> {
  const { hostname, port } = new URL(base);
  const open = new Set<net.Socket>();
  let stopped = false;
  let opened = 0;
  let answered408 = 0;
  let closedWithout408 = 0;
  const connect = (): Promise<void> =>
    new Promise((resolve) => {
      const socket = net.connect({ host: hostname, port: Number(port) }, () => {
        socket.write(ATTACK);
        resolve();
      });
      opened++;
      open.add(socket);
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => (text += d));
      socket.on('error', () => resolve());
      socket.on('close', () => {
        open.delete(socket);
        if (stopped) return;
        if (text.startsWith('HTTP/1.1 408')) answered408++;
        else closedWithout408++;
        void connect();
      });
    });
  return Promise.all(Array.from({ length: count }, connect)).then(() => ({
    stop() {
      stopped = true;
      for (const socket of open) socket.destroy();
      return { opened, answered408, closedWithout408 };
    },
  }));
}
