import { IdAccess } from './auth/scopedTokens';
import { type LeafConfig, processConfig } from './config';
import { systemClock } from './clock';
import { TIMED_OUT, within } from './deadline';
import { LeafError } from './errors';
import { type Logger, createLogger } from './log';
import { type ConsoleRuntime, createConsoleParts, startConsoleParts } from './runtimeConsole';
import { type CoreRuntime, closeCore, openCore } from './runtimeCore';

export type { ConsoleRuntime } from './runtimeConsole';
export type { CoreRuntime } from './runtimeCore';

/** The one engine per process, on globalThis so Next's module re-evaluation finds it (docs/design.md#the-fast-lane). */
export type Runtime = CoreRuntime & { console: ConsoleRuntime };

interface Holder {
  access: IdAccess | null;
  logger: Logger | null;
  runtime: Runtime | null;
  opening: Promise<Runtime> | null;
  lastFailureAt: number;
}

const KEY = Symbol.for('leaf-ts.runtime');
const RETRY_OPEN_MS = 1_000;

function holder(): Holder {
  const g = globalThis as unknown as Record<symbol, Holder | undefined>;
  return (g[KEY] ??= { access: null, logger: null, runtime: null, opening: null, lastFailureAt: 0 });
}

/** This process's logger, at the configured level. */
export function processLogger(): Logger {
  const h = holder();
  return (h.logger ??= createLogger(processConfig().logLevel));
}

/** Who may use the ID routes, one table per process; not loaded until the runtime opens, so routes wait. */
export function processIdAccess(): IdAccess {
  const h = holder();
  return (h.access ??= new IdAccess(processConfig().idToken));
}

/** The runtime if it is up (synchronous, for the hot path), else null. */
export function currentRuntime(): Runtime | null {
  return holder().runtime;
}

/** Opens the store and engine once; a failed open (database down at start) is retried by a later call. */
export function getRuntime(): Promise<Runtime> {
  const h = holder();
  if (h.runtime !== null) return Promise.resolve(h.runtime);
  if (h.opening === null) {
    h.opening = open(processConfig(), processLogger()).then(
      (runtime) => {
        h.runtime = runtime;
        return runtime;
      },
      (error: unknown) => {
        h.lastFailureAt = Date.now();
        setTimeout(() => {
          h.opening = null;
        }, RETRY_OPEN_MS).unref();
        processLogger().log('error', 'runtime_open_failed', { error });
        throw error;
      },
    );
  }
  return h.opening;
}

/**
 * A request waits this long for a runtime still opening, then answers 503 `not_ready`: a restart after kill -9 waits
 * out its old identity for seconds, and a balancer that still routes to the port retries elsewhere at once.
 */
const OPEN_WAIT_MS = 1_000;

/** Synchronously once up, else a promise of it that fails with `not_ready` when it fails or takes too long. */
export function runtimeOrNotReady(): Runtime | Promise<Runtime> {
  const current = currentRuntime();
  if (current !== null) return current;
  return within(systemClock, OPEN_WAIT_MS, getRuntime()).then(
    (runtime) => {
      if (runtime === TIMED_OUT) throw notReady();
      return runtime;
    },
    (cause: unknown) => {
      throw notReady(cause);
    },
  );
}

function notReady(cause?: unknown): LeafError {
  return new LeafError('not_ready', 'The service is starting or cannot reach its store; try again shortly.', { cause });
}

/** The serving core, and the console's part around it (its hooks are in the engines from their start). */
async function open(config: LeafConfig, logger: Logger): Promise<Runtime> {
  const parts = createConsoleParts(config);
  const core = await openCore(config, logger, { onLoad: parts.onLoad, access: processIdAccess() });
  const consoleParts = startConsoleParts(parts, core, config, logger);
  return { ...core, console: consoleParts };
}

/** The engine stops serving, gives back (bounded), and only then is the store closed. */
export async function closeRuntime(): Promise<void> {
  const h = holder();
  // A stop during the start: let the opening finish, then close what it opened (a worker lease, the node's row).
  if (h.runtime === null && h.opening !== null) await h.opening.catch(() => undefined);
  const runtime = h.runtime;
  h.runtime = null;
  h.opening = null;
  if (runtime !== null) {
    runtime.console.stop();
    await closeCore(runtime);
  }
}
