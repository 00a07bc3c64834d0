/**
 * What a MySQL/MariaDB failure says about the statement that met it — the whole basis of retrying on Galera, where
 * a claim on one node can lose certification against a claim on another, and a node outside the primary
 * component refuses every statement:
 *
 * - `committed-not`: the statement certainly did not take effect, so running it again cannot double it —
 *   1213 (deadlock, and Galera's certification failure, raised at commit even in autocommit), 1205 (lock wait
 *   timeout), 1047 (WSREP has not yet prepared node for application use: not synced, or a non-primary
 *   partition), any failure to get a connection (nothing was sent), and a lost connection inside a transaction
 *   that had not sent COMMIT (the server rolls it back).
 * - `unknown-outcome`: the connection died or the query timed out after a statement that commits by itself (or a
 *   COMMIT) was sent. It may have committed. So does 1180 (error during COMMIT): a Galera node that leaves the
 *   primary component while a write set is being replicated answers a statement in flight with it ("Error while
 *   appending streaming replication fragment (provider status: Not connected to Primary Component)"), and the
 *   write set may have reached the others; the node is at fault, so another host is tried.
 * - `fatal`: anything else (a server error such as a syntax error or a duplicate key is the same on every retry).
 */

import { isLeafError } from '../errors';

export type Outcome = 'committed-not' | 'unknown-outcome' | 'fatal';

/**
 * Where the failure happened. `connect`: getting a connection. `uncommitted`: a statement inside a transaction
 * before COMMIT was sent (it cannot commit anything by itself). `may-commit`: an autocommit statement or COMMIT.
 */
export type Phase = 'connect' | 'uncommitted' | 'may-commit';

export interface Classified {
  outcome: Outcome;
  /** The host, not the statement, is at fault (not in the primary component, or unreachable): try another one. */
  moveHost: boolean;
}

export const ER_LOCK_DEADLOCK = 1213;
export const ER_LOCK_WAIT_TIMEOUT = 1205;
export const ER_UNKNOWN_COM_ERROR = 1047;
export const ER_ERROR_DURING_COMMIT = 1180;

const NOT_COMMITTED = new Set([ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT, ER_UNKNOWN_COM_ERROR]);

interface DriverError {
  errno?: unknown;
  code?: unknown;
  fatal?: unknown;
  message?: unknown;
  sqlState?: unknown;
}

/** A server error packet: the connection is intact and the server answered for this statement. */
export function serverErrno(error: unknown): number | undefined {
  const e = error as DriverError | null;
  // A server error packet carries both errno and sqlState; a socket error's errno is a negative OS number.
  return typeof e?.errno === 'number' && e.errno > 0 && typeof e.sqlState === 'string' ? e.errno : undefined;
}

export function classify(error: unknown, phase: Phase): Classified {
  if (phase === 'connect') return { outcome: 'committed-not', moveHost: true };
  if (isLeafError(error)) return { outcome: 'fatal', moveHost: false };
  const errno = serverErrno(error);
  if (errno !== undefined) {
    if (NOT_COMMITTED.has(errno)) return { outcome: 'committed-not', moveHost: errno === ER_UNKNOWN_COM_ERROR };
    if (errno === ER_ERROR_DURING_COMMIT) return { outcome: phase === 'uncommitted' ? 'committed-not' : 'unknown-outcome', moveHost: true };
    return { outcome: 'fatal', moveHost: false };
  }
  const e = error as DriverError | null;
  // mysql2 refuses a command on a connection it already knows is closed, before writing anything.
  if (typeof e?.message === 'string' && e.message.startsWith("Can't add new command when connection is in closed state")) {
    return { outcome: 'committed-not', moveHost: true };
  }
  // A lost connection or a query timeout (PROTOCOL_CONNECTION_LOST, ECONNRESET, EPIPE, ETIMEDOUT,
  // PROTOCOL_SEQUENCE_TIMEOUT, …): no answer came for a statement that was sent. Any other driver-side error
  // counts the same: not knowing is the safe reading.
  if (typeof e?.code === 'string' || e?.fatal === true) {
    return { outcome: phase === 'uncommitted' ? 'committed-not' : 'unknown-outcome', moveHost: true };
  }
  return { outcome: 'fatal', moveHost: false };
}

/** A failure of one attempt, with where it happened and which host (index in the URL's list) it met, if known. */
export class AttemptFault extends Error {
  override readonly name = 'AttemptFault';
  constructor(
    readonly phase: Phase,
    override readonly cause: unknown,
    readonly host?: number,
  ) {
    super(`${phase} failed`, { cause });
  }
}

export interface RetryPolicy {
  /** At most this many attempts in all. */
  attempts: number;
  /** No new attempt starts later than this many ms after the first began. */
  budgetMs: number;
  /**
   * Whether an unknown outcome may be retried: only where doing it twice is harmless — a claim (a lost segment
   * is a gap), an idempotent write, a read. Otherwise the caller gets store_unavailable.
   */
  retryUnknown: boolean;
  /** First backoff; doubles per attempt, jittered to 50–150 %, never past the budget. */
  backoffMs?: number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Told of each host that failed in a way that means "use another host for a while". */
  onHostFault?: (host: number) => void;
  /** Told of each failure that is about to be retried (counted by the store: MysqlStore.retries). */
  onRetry?: (failure: RetryFailure, phase: Phase) => void;
}

export interface AttemptContext {
  /** 1 for the first attempt. */
  attempt: number;
  /** Hosts that failed an earlier attempt of this operation: the next attempt prefers the others. */
  exclude: ReadonlySet<number>;
}

export type RetryFailure = { cause: unknown; classified: Classified };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it succeeds, or fails in a way that must not be retried, or the attempts or the budget
 * run out. Only AttemptFaults are considered for retry; anything else (a LeafError such as tag_exists) is thrown
 * as is. On giving up, `fail` builds the error (the store wraps it as store_unavailable).
 */
export async function withRetries<T>(
  attempt: (ctx: AttemptContext) => Promise<T>,
  policy: RetryPolicy,
  fail: (last: RetryFailure) => Error,
): Promise<T> {
  const now = policy.now ?? (() => performance.now());
  const sleep = policy.sleep ?? defaultSleep;
  const random = policy.random ?? Math.random;
  const base = policy.backoffMs ?? 20;
  const deadline = now() + policy.budgetMs;
  const exclude = new Set<number>();
  for (let n = 1; ; n++) {
    try {
      return await attempt({ attempt: n, exclude });
    } catch (error) {
      if (!(error instanceof AttemptFault)) throw error;
      const classified = classify(error.cause, error.phase);
      if (classified.moveHost && error.host !== undefined) {
        exclude.add(error.host);
        policy.onHostFault?.(error.host);
      }
      // The retry decision. A `committed-not` failure changed nothing: running the statement again is safe.
      // An `unknown-outcome` one may have committed: it is retried only where a second run is harmless — for a
      // claim that means the first claim counts as possibly taken (its segment becomes a gap) and the segment is
      // built only from the OK packet of the claim that answered. A segment is NEVER derived from reading max_id
      // afterwards: another node may have claimed in between, and that read would hand out its IDs again.
      const retryable = classified.outcome === 'committed-not' || (classified.outcome === 'unknown-outcome' && policy.retryUnknown);
      if (!retryable || n >= policy.attempts) throw fail({ cause: error.cause, classified });
      const wait = Math.min(base * 2 ** (n - 1) * (0.5 + random()), deadline - now());
      if (wait <= 0) throw fail({ cause: error.cause, classified });
      policy.onRetry?.({ cause: error.cause, classified }, error.phase);
      await sleep(wait);
    }
  }
}
