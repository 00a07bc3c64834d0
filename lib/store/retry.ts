/**
 * Retrying a statement against a database server, whatever the dialect: each attempt's failure is read by the
 * dialect's `classify` (mysql/errors.ts) as one of three outcomes, and only where running it again cannot hand out an
 * ID twice is it run again, on another host where the host was at fault.
 *
 * - `committed-not`: the statement certainly did not take effect, so running it again cannot double it.
 * - `unknown-outcome`: the connection died or the query timed out after a statement that commits by itself (or a
 *   COMMIT) was sent. It may have committed.
 * - `fatal`: anything else (a syntax error or a duplicate key is the same on every retry).
 */

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
  /** What a failure says about the statement that met it: the dialect's reading of its driver's errors. */
  classify: (error: unknown, phase: Phase) => Classified;
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
  /** Told of each failure that is about to be retried (counted by the store, e.g. MysqlStore.retries). */
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
      const classified = policy.classify(error.cause, error.phase);
      if (classified.moveHost && error.host !== undefined) {
        exclude.add(error.host);
        policy.onHostFault?.(error.host);
      }
      // The retry decision. A `committed-not` failure changed nothing: running the statement again is safe.
      // An `unknown-outcome` one may have committed: it is retried only where a second run is harmless — for a
      // claim that means the first claim counts as possibly taken (its segment becomes a gap) and the segment is
      // built only from the answer of the claim that answered. A segment is NEVER derived from reading max_id
      // afterwards: another node may have claimed in between, and that read would hand out its IDs again.
      const retryable =
        classified.outcome === 'committed-not' || (classified.outcome === 'unknown-outcome' && policy.retryUnknown);
      if (!retryable || n >= policy.attempts) throw fail({ cause: error.cause, classified });
      const wait = Math.min(base * 2 ** (n - 1) * (0.5 + random()), deadline - now());
      if (wait <= 0) throw fail({ cause: error.cause, classified });
      policy.onRetry?.({ cause: error.cause, classified }, error.phase);
      await sleep(wait);
    }
  }
}

/**
 * The hosts (indexes, in the URL's order, which is the order of preference) the next attempt may use: neither set
 * aside until a moment still ahead (`asideUntil`, by `now`) nor failed earlier in this operation (`exclude`). When
 * every host is excluded, all are allowed again rather than none.
 */
export function allowedHosts(asideUntil: readonly number[], exclude: ReadonlySet<number>, now: number): number[] {
  const all = asideUntil.map((_, i) => i);
  const untried = all.filter((i) => !exclude.has(i));
  const fresh = untried.filter((i) => (asideUntil[i] ?? 0) <= now);
  return fresh.length > 0 ? fresh : untried.length > 0 ? untried : all;
}
