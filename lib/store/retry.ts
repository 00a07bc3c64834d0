/** Retrying a statement on a database server, whatever the dialect (docs/design.md#executors-hosts-and-retries). */

export type Outcome = 'committed-not' | 'unknown-outcome' | 'fatal';

/** `uncommitted`: inside a transaction before COMMIT was sent; `may-commit`: autocommit or COMMIT. */
export type Phase = 'connect' | 'uncommitted' | 'may-commit';

export interface Classified {
  outcome: Outcome;
  /** The host, not the statement, is at fault: try another one. */
  moveHost: boolean;
}

/** A failure of one attempt: where it happened, and which host (index in the URL's list) if known. */
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
  classify: (error: unknown, phase: Phase) => Classified;
  /** At most this many attempts in all. */
  attempts: number;
  /** No new attempt starts later than this many ms after the first began. */
  budgetMs: number;
  /** Only where doing it twice is harmless (a claim, an idempotent write, a read). */
  retryUnknown: boolean;
  /** First backoff; doubles per attempt, jittered to 50–150 %, never past the budget. */
  backoffMs?: number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** A host to set aside for a while. */
  onHostFault?: (host: number) => void;
  /** Each failure about to be retried (the store counts them). */
  onRetry?: (failure: RetryFailure, phase: Phase) => void;
}

export interface AttemptContext {
  attempt: number;
  /** Hosts that failed an earlier attempt of this operation. */
  exclude: ReadonlySet<number>;
}

export type RetryFailure = { cause: unknown; classified: Classified };

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Only AttemptFaults are retried; anything else (a LeafError such as tag_exists) is thrown as is. */
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
      // Never derive a segment from a later read of max_id: another node may have claimed in between.
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

/** Hosts (URL order) neither set aside nor failed in this operation; when none is left, all are allowed again. */
export function allowedHosts(asideUntil: readonly number[], exclude: ReadonlySet<number>, now: number): number[] {
  const all = asideUntil.map((_, i) => i);
  const untried = all.filter((i) => !exclude.has(i));
  const fresh = untried.filter((i) => (asideUntil[i] ?? 0) <= now);
  return fresh.length > 0 ? fresh : untried.length > 0 ? untried : all;
}
