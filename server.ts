/**
 * `npm start`: one process, one port, one engine. ID routes take the fast lane (bare node:http into the shared
 * framework-free handler); everything else goes to Next's request handler (Next's documented custom server).
 * LEAF_FAST_LANE=off sends every request through Next, for comparison in the benchmark.
 */
import cluster, { type Worker } from 'node:cluster';
import http from 'node:http';
import type { AdminToken } from './lib/auth/adminToken';
import { type LeafConfig, processConfig } from './lib/config';
import { LeafError, isLeafError } from './lib/errors';
import { EXIT_CONFIG } from './lib/exitCodes';
import { type Answer, errorAnswer, rawHttp } from './lib/http/answer';
import { CLIENT_ADDRESS_HEADER, requestAddress, socketAddress } from './lib/http/clientAddress';
import { CLIENT_SCHEME_HEADER, requestScheme } from './lib/http/origin';
import { processIdHandler } from './lib/http/defaultHandler';
import { ALLOWED_METHODS, precheck } from './lib/http/precheck';
import { refuseWithBody } from './lib/http/refuse';
import { proxyMatcher } from './lib/trustedProxies';
import type { Logger } from './lib/log';
import { closeRuntime, currentRuntime, getRuntime, processIdAccess, processLogger } from './lib/runtime';

/** How long a graceful stop waits for requests in flight before closing their connections. */
const DRAIN_MS = 1_000;
/** A stop that has not finished by now (a store that hangs on close) exits anyway. */
const EXIT_DEADLINE_MS = 10_000;
/**
 * The signals that stop the server gracefully: Ctrl-C, a supervisor's stop, a closed terminal. A terminal or a
 * supervisor often delivers one stop twice or more (to the whole process group and again through npm), so they
 * are handled for the whole life of the process: a repeat while stopping is noted, never Node's default action.
 */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Calls `stop(signal)` on the first stop signal; later ones are logged once and otherwise ignored. */
function onStopSignals(logger: Logger, stop: (signal: NodeJS.Signals) => void): void {
  let first: NodeJS.Signals | null = null;
  let noted = false;
  const handle = (signal: NodeJS.Signals) => {
    if (first === null) {
      first = signal;
      return stop(signal);
    }
    if (noted) return;
    noted = true;
    logger.log('info', 'stop_already_in_progress', {
      signal,
      first,
      note: `the stop ${first} started finishes first (at most ${EXIT_DEADLINE_MS / 1000} s, with the give-back); SIGKILL stops at once`,
    });
  };
  for (const signal of STOP_SIGNALS) process.on(signal, handle);
}

async function main(config: LeafConfig, logger: Logger): Promise<void> {
  const { port, host: hostname, dev, fastLane } = config;
  let server: http.Server | null = null;
  let stopping = false;
  // Stop accepting, let the requests in flight finish (at most DRAIN_MS), then close the runtime: the engine stops
  // serving and gives back what it never handed out (bounded), and the store closes. Nothing may hang the exit. A
  // stop while still starting closes what has opened so far (the runtime waits for its own opening).
  const shutdown = (reason: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    logger.log('info', 'shutting_down', { signal: reason });
    setTimeout(() => process.exit(code), EXIT_DEADLINE_MS).unref();
    const open = server;
    const drained = new Promise<void>((resolve) => {
      if (open === null) return resolve();
      open.close(() => resolve());
      setTimeout(resolve, DRAIN_MS).unref();
    });
    open?.closeIdleConnections();
    void drained
      .then(() => {
        open?.closeAllConnections();
        return closeRuntime();
      })
      .finally(() => process.exit(code));
  };
  // From the first moment, so a stop during the start is a stop too, never Node's default action.
  onStopSignals(logger, shutdown);
  // Next (the console and its API) loads once the runtime is open; a request for its routes meanwhile waits for it.
  let nextLoaded: (handle: Promise<NextHandle>) => void = () => undefined;
  const nextHandle = new Promise<NextHandle>((resolve) => (nextLoaded = (handle) => resolve(handle)));

  const idHandler = processIdHandler();
  // Open (no LEAF_ID_TOKEN, no access token ever created): the Authorization header is not even read.
  const access = processIdAccess();
  const proxies = config.trustedProxies.length === 0 ? null : proxyMatcher(config.trustedProxies);
  // A request's headers and body must arrive within LEAF_REQUEST_TIMEOUT_MS (408, then the connection closes),
  // checked every second: Node's defaults let an unauthenticated slow body hold a connection for five minutes.
  const timeouts = {
    headersTimeout: config.requestTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: 1_000,
  };
  const listening = http.createServer(timeouts, (req, res) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    // Headers are read only when they matter: touching req.headers makes Node build the object for every request.
    const refused = precheck(
      method,
      url,
      method !== 'GET' && method !== 'HEAD' ? req.headers['content-length'] : undefined,
    );
    if (refused !== null) return refuseWithBody(req, res, refused);
    const result = fastLane ? idHandler(method, url, access.open ? undefined : req.headers.authorization) : null;
    if (result === null) {
      // The one place the client's address and scheme are stamped: overwrites any copy the client sent
      // (lib/http/clientAddress.ts, lib/http/origin.ts).
      req.headers[CLIENT_ADDRESS_HEADER] = requestAddress(
        req.socket.remoteAddress,
        req.headers['x-forwarded-for'],
        proxies,
      );
      req.headers[CLIENT_SCHEME_HEADER] = requestScheme(
        proxies !== null && proxies.trusts(socketAddress(req.socket.remoteAddress)),
        req.headers['x-forwarded-proto'],
      );
      void nextHandle.then((handle) => handle(req, res));
    } else if (result instanceof Promise) {
      result.then((r) => send(res, r));
    } else {
      send(res, result);
    }
  });
  server = listening;
  listening.keepAliveTimeout = 65_000;
  // Requests Node's parser rejects (bad framing, oversized headers) still get a JSON answer, not a bare status.
  listening.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') return socket.destroy();
    const answer = errorAnswer(clientErrorOf(error.code, config.requestTimeoutMs));
    socket.end(rawHttp(answer, http.STATUS_CODES[answer.status] ?? ''));
  });
  listening.on('connect', (_req, socket) => {
    const answer = errorAnswer(
      new LeafError('method_not_allowed', 'CONNECT is not supported.', { allow: ALLOWED_METHODS }),
    );
    socket.end(rawHttp(answer, http.STATUS_CODES[answer.status] ?? ''));
  });
  // The port first: a start that cannot have it stops here, before a node row is registered or a worker id leased.
  await listenOrRefuse(listening, port, hostname);
  logger.log('info', 'listening', {
    url: `http://${hostname === '0.0.0.0' ? 'localhost' : hostname}:${port}`,
    fastLane,
    dev,
  });
  // Then the store; a database that is down at start is retried by later requests (503 not_ready meanwhile), but a
  // misconfiguration (bad epoch, bad DATABASE_URL) stops the start with its message.
  await getRuntime().catch((error: unknown) => {
    if (isLeafError(error) && error.code === 'invalid_config') throw error;
  });
  if (stopping) return; // told to stop while starting: shutdown() is closing what opened
  // Next after the runtime: IDs and /api/health are served about two seconds sooner after a (re)start. With the fast
  // lane off, every request waits for it, /api/health too.
  const loading = loadNext(dev, hostname, port);
  loading.catch((error: unknown) => {
    logger.log('error', 'start_failed', { error });
    shutdown('start_failed', 1);
  });
  nextLoaded(loading);

  // Once the runtime is open: the login link when the admin token was made at this start; and should another process
  // take this node's identity (it found this one silent), two processes share one node id: this one gives way
  // rather than fight over the snowflake worker lease.
  const whenOpen = (): void => {
    const runtime = currentRuntime();
    // Not open yet (the database was down at start): a later request opens it; look again then.
    if (runtime === null) return void setTimeout(whenOpen, 1_000).unref();
    printLoginLink(runtime.console.admin, port);
    void runtime.fleet.whenLost().then((taker) => {
      const where =
        taker === undefined ? 'another process' : `another process at ${taker.address} (instance ${taker.instanceId})`;
      process.stderr.write(
        `leaf-ts: stopping: node id "${config.node.id}" was taken over by ${where}; give each node its own LEAF_NODE_ID\n`,
      );
      shutdown('node_identity_lost', EXIT_CONFIG);
    });
    // Its database renumbered under it (a region record rewritten by hand): it stops rather than issue IDs of a
    // numbering the database no longer has.
    void runtime.whenRegionChanged().then((reason) => {
      process.stderr.write(`leaf-ts: stopping: ${reason.message}\n`);
      shutdown('region_changed', EXIT_CONFIG);
    });
  };
  whenOpen();
}

/** What a request Node's parser gave up on is told: too large, too slow (408), or not HTTP. */
function clientErrorOf(code: string | undefined, requestTimeoutMs: number): LeafError {
  if (code === 'HPE_HEADER_OVERFLOW')
    return new LeafError('headers_too_large', 'The request line or headers are too large.');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new LeafError('request_timeout', `The request did not arrive whole within ${requestTimeoutMs / 1000} s.`);
  return new LeafError('invalid_request', 'The request could not be parsed.');
}

type NextHandle = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

/** Why this address cannot be had, in the words of the variable that moves it; other errors as they are. */
function listenRefusal(error: NodeJS.ErrnoException, port: number, hostname: string): Error {
  const at = `${hostname}:${port}`;
  if (error.code === 'EADDRINUSE')
    return new LeafError('invalid_config', `${at} is already in use by another process; set PORT to a free port`);
  if (error.code === 'EACCES')
    return new LeafError(
      'invalid_config',
      `${at} needs a privilege this process lacks (ports below 1024 do); set PORT to 1024 or above`,
    );
  if (error.code === 'EADDRNOTAVAIL')
    return new LeafError(
      'invalid_config',
      `HOST ${hostname} is not an address of this machine; set HOST to one that is`,
    );
  return error;
}

/** `server.listen`, settled: resolves once listening, rejects with the refusal when the address cannot be had. */
function listenOrRefuse(server: http.Server, port: number, hostname: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(listenRefusal(error, port, hostname));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, hostname);
  });
}

/** Next's request handler, once its module is loaded and the app prepared (a missing build rejects). */
async function loadNext(dev: boolean, hostname: string, port: number): Promise<NextHandle> {
  const { default: next } = await import('next');
  const app = next({ dev, hostname, port });
  await app.prepare();
  return app.getRequestHandler();
}

/** The operator's way into the console, printed once, when the admin token was made at this start. */
function printLoginLink(admin: AdminToken, port: number): void {
  if (!admin.generated) return;
  process.stdout.write(
    `\nleaf-ts console: http://localhost:${port}/login#token=${admin.token}\n(admin token saved in ${admin.file}; set LEAF_ADMIN_TOKEN to choose your own)\n\n`,
  );
}

function send(res: http.ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** LEAF_WORKERS=N runs N processes on one port (node:cluster); each is its own Leaf node with its own engine. */
function primary(config: LeafConfig, logger: Logger): void {
  const { workers, port } = config;
  logger.log('info', 'cluster_starting', { workers, port });
  const live = new Set<Worker>();
  let stopping = false;
  let refused = 0;
  const fork = (index: number) => {
    const worker = cluster.fork({ LEAF_WORKER_INDEX: String(index) });
    live.add(worker);
    worker.on('exit', (code, signal) => {
      live.delete(worker);
      if (stopping) {
        if (live.size === 0) process.exit(0);
        return;
      }
      if (code === EXIT_CONFIG) {
        // It refused its configuration (its node id is live in another process): a restart would refuse again.
        logger.log('error', 'cluster_worker_refused', { index, code });
        if (++refused >= workers) process.exit(EXIT_CONFIG);
        return;
      }
      logger.log('warn', 'cluster_worker_exited', { index, code, signal });
      setTimeout(() => stopping || fork(index), 1_000); // a crashed node restarts with the same identity
    });
  };
  for (let i = 0; i < workers; i++) fork(i);
  // Each worker stops as a single server does (its own give-back, its own bound); the primary waits for them, a little
  // past their bound: a primary that left first would cut its workers' stops short (they exit when it disconnects).
  onStopSignals(logger, (signal) => {
    stopping = true;
    logger.log('info', 'shutting_down', { signal, workers: live.size });
    if (live.size === 0) process.exit(0);
    for (const worker of live) worker.process.kill(signal);
    setTimeout(() => process.exit(0), EXIT_DEADLINE_MS + 2_000).unref();
  });
}

function start(): void {
  let config: LeafConfig;
  try {
    config = processConfig();
  } catch (error) {
    // One plain line per bad variable, for the person who typed it; nothing else has started yet.
    refuse(error, EXIT_CONFIG);
  }
  const logger = processLogger();
  if (cluster.isPrimary && config.workers > 1) return primary(config, logger);
  main(config, logger).catch((error: unknown) => {
    // A misconfiguration found while opening (a bad epoch, a node id live in another process): the same plain line.
    if (isLeafError(error) && error.code === 'invalid_config') refuse(error, EXIT_CONFIG);
    logger.log('error', 'start_failed', { error });
    process.exit(1);
  });
}

function refuse(error: unknown, code: number): never {
  const lines = isLeafError(error) ? error.message.split('\n') : [String(error)];
  for (const line of lines) process.stderr.write(`leaf-ts: cannot start: ${line}\n`);
  process.exit(code);
}

start();
