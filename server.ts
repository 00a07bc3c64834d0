/**
 * `npm start`: one process, one port, one engine. ID routes take the fast lane (bare node:http into the shared
 * framework-free handler); everything else goes to Next's request handler (Next's documented custom server).
 * LEAF_FAST_LANE=off sends every request through Next, for comparison in the benchmark.
 */
import cluster from 'node:cluster';
import http from 'node:http';
import next from 'next';
import { isLeafError } from './lib/errors';
import { idHandler, idTokenRequired } from './lib/http/defaultHandler';
import type { IdResponse } from './lib/http/idHandler';
import { jsonError, precheck } from './lib/http/precheck';
import { createLogger } from './lib/log';
import { closeRuntime, getRuntime } from './lib/runtime';

const logger = createLogger();
const port = Number(process.env.PORT ?? 3000);
const hostname = process.env.HOST ?? '127.0.0.1';
const dev = process.env.NODE_ENV !== 'production';
const fastLane = process.env.LEAF_FAST_LANE !== 'off';
/** LEAF_WORKERS=N runs N processes on one port (node:cluster); each is its own Leaf node with its own engine. */
const workers = Number(process.env.LEAF_WORKERS ?? 1);

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
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    // Headers are read only when they matter: touching req.headers makes Node build the object for every request.
    const withBody = method !== 'GET' && method !== 'HEAD';
    const result =
      precheck(method, url, withBody ? req.headers['content-length'] : undefined) ??
      (fastLane ? idHandler(method, url, idTokenRequired ? req.headers.authorization : undefined) : null);
    if (result === null) {
      void nextHandle(req, res);
    } else if (result instanceof Promise) {
      result.then((r) => send(res, r));
    } else {
      send(res, result);
    }
  });
  server.keepAliveTimeout = 65_000;
  // Requests Node's parser rejects (bad framing, oversized headers) still get a JSON answer, not a bare status.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (error.code === 'ECONNRESET')) return socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    socket.end(rawResponse(jsonError(tooLarge ? 431 : 400, tooLarge ? 'headers_too_large' : 'invalid_request', tooLarge ? 'The request line or headers are too large.' : 'The request could not be parsed.')));
  });
  server.on('connect', (_req, socket) => {
    socket.end(rawResponse(jsonError(405, 'method_not_allowed', 'CONNECT is not supported.', { allow: 'GET, POST, PATCH, DELETE' })));
  });
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

function rawResponse(r: IdResponse): string {
  const headers = Object.entries({ ...r.headers, connection: 'close', 'content-length': String(Buffer.byteLength(r.body)) })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  return `HTTP/1.1 ${r.status} ${http.STATUS_CODES[r.status] ?? ''}\r\n${headers}\r\n\r\n${r.body}`;
}

function send(res: http.ServerResponse, r: IdResponse): void {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
}

function primary(): void {
  logger.log('info', 'cluster_starting', { workers, port });
  const fork = (index: number) => {
    const worker = cluster.fork({ LEAF_WORKER_INDEX: String(index) });
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      logger.log('warn', 'cluster_worker_exited', { index, code, signal });
      setTimeout(() => fork(index), 1_000); // a crashed node restarts with the same identity
    });
  };
  let stopping = false;
  for (let i = 0; i < workers; i++) fork(i);
  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  let exited = 0;
  cluster.on('exit', () => {
    if (stopping && ++exited >= workers) process.exit(0);
  });
}

if (!Number.isInteger(workers) || workers < 1 || workers > 64) {
  logger.log('error', 'start_failed', { error: `LEAF_WORKERS must be an integer from 1 to 64 (got ${process.env.LEAF_WORKERS})` });
  process.exit(1);
} else if (cluster.isPrimary && workers > 1) {
  primary();
} else {
  main().catch((error) => {
    logger.log('error', 'start_failed', { error });
    process.exit(1);
  });
}
