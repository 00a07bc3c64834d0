/**
 * `npm start`: one process, one port, one engine. ID routes take the fast lane (bare node:http into the shared
 * framework-free handler); everything else goes to Next's request handler (Next's documented custom server).
 * LEAF_FAST_LANE=off sends every request through Next, for comparison in the benchmark.
 */
import http from 'node:http';
import next from 'next';
import { isLeafError } from './lib/errors';
import { idHandler } from './lib/http/defaultHandler';
import type { IdResponse } from './lib/http/idHandler';
import { createLogger } from './lib/log';
import { closeRuntime, getRuntime } from './lib/runtime';

const logger = createLogger();
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST ?? '127.0.0.1';
const dev = process.env.NODE_ENV !== 'production';
const fastLane = process.env.LEAF_FAST_LANE !== 'off';

async function main(): Promise<void> {
  const app = next({ dev, hostname, port });
  const nextHandle = app.getRequestHandler();
  // Open the store while Next prepares; a database that is down at start is retried by later requests,
  // but a misconfiguration (bad epoch, bad DATABASE_URL) stops the start with its message.
  const warm = getRuntime().catch((error: unknown) => {
    if (isLeafError(error) && error.code === 'invalid_config') throw error;
  });
  await Promise.all([app.prepare(), warm]);

  const server = http.createServer((req, res) => {
    const result = fastLane ? idHandler(req.method ?? 'GET', req.url ?? '/', req.headers.authorization) : null;
    if (result === null) {
      void nextHandle(req, res);
    } else if (result instanceof Promise) {
      result.then((r) => send(res, r));
    } else {
      send(res, result);
    }
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, hostname, () => {
    logger.log('info', 'listening', { url: `http://${hostname === '0.0.0.0' ? 'localhost' : hostname}:${port}`, fastLane, dev });
  });

  const shutdown = (signal: string) => {
    logger.log('info', 'shutting_down', { signal });
    server.close();
    server.closeAllConnections();
    void closeRuntime().finally(() => process.exit(0));
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

function send(res: http.ServerResponse, r: IdResponse): void {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
}

main().catch((error) => {
  logger.log('error', 'start_failed', { error });
  process.exit(1);
});
