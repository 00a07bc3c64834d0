import type { Clock } from '../clock';
import { LeafClientError, closedError } from './errors';
import { type Lease, parseBatch, parseErrorAnswer, parseIds, parseLease, parseOrdering } from './lease';
import type { OrderingAnswer } from './orderingWatch';

/** What the client needs of an answer: the global `fetch`'s Response satisfies it. */
export interface FetchAnswer {
  readonly status: number;
  text(): Promise<string>;
}

/** The part of `fetch` the client uses; injectable for tests or a custom agent. */
export type FetchLike = (
  url: string,
  init: { headers: Record<string, string>; signal: AbortSignal },
) => Promise<FetchAnswer>;

export interface LeaseFetcherOptions {
  urls: string[];
  token?: string;
  timeoutMs: number;
  fetch: FetchLike;
  clock: Clock;
}

/** Answers no other server would answer differently: the request itself is wrong, so failing over cannot help. */
const FINAL_STATUSES = new Set([400, 401, 403]);

/** The last server that answered first, then the others, each attempt bounded; unconfirmed leases are dropped. */
export class LeaseFetcher {
  private readonly urls: string[];
  private readonly headers: Record<string, string>;
  private preferred = 0;
  private closed = false;
  /** Cancels every attempt in flight (close). */
  private readonly inFlight = new Set<() => void>();

  constructor(private readonly options: LeaseFetcherOptions) {
    this.urls = options.urls.map((url) => url.replace(/\/+$/, ''));
    this.headers = { accept: 'application/json' };
    if (options.token !== undefined) this.headers.authorization = `Bearer ${options.token}`;
  }

  /** A range lease of `count` IDs, from the first server that gives it. */
  lease(tag: string, count: number): Promise<Lease> {
    return this.firstAnswer(`a lease of ${count} for "${tag}"`, (base) =>
      this.attempt(`${base}/api/id/segment/${encodeURIComponent(tag)}/range?count=${count}`, (text) =>
        parseLease(text, tag, count),
      ),
    );
  }

  /** `count` IDs (at most 10,000) asked for now: a strict tag's, which no lease may hold (docs/design.md#ordered-tags). */
  take(tag: string, count: number, increasing = true): Promise<bigint[]> {
    return this.firstAnswer(`${count} IDs of "${tag}"`, (base) =>
      this.attempt(`${base}/api/id/segment/${encodeURIComponent(tag)}?count=${count}`, (text) =>
        parseIds(text, tag, count, increasing),
      ),
    );
  }

  /** An opaque tag's batch of `count`, held by the client: its IDs, and `validMs` when the node says it. */
  batch(tag: string, count: number): Promise<{ ids: bigint[]; validMs: number | null }> {
    return this.firstAnswer(`${count} IDs of "${tag}"`, (base) =>
      this.attempt(`${base}/api/id/segment/${encodeURIComponent(tag)}?count=${count}`, (text) =>
        parseBatch(text, tag, count),
      ),
    );
  }

  /** This client's vouch renewed by the first server that answers; `unsupported` when servers lack the route. */
  async ordering(clientId: string, acked: number): Promise<OrderingAnswer | 'unsupported'> {
    const path = `/api/id/ordering?client=${encodeURIComponent(clientId)}&acked=${acked}`;
    try {
      return await this.firstAnswer('a vouch', (base) => this.attempt(`${base}${path}`, parseOrdering));
    } catch (error) {
      if ((error as LeafClientError).code === 'route_not_found') return 'unsupported';
      throw error;
    }
  }

  /** Tells one server this client closed (best effort, bounded, never awaited). */
  bye(clientId: string): void {
    const base = this.urls[this.preferred] as string;
    const url = `${base}/api/id/ordering?client=${encodeURIComponent(clientId)}&bye=1`;
    this.options
      .fetch(url, { headers: this.headers, signal: AbortSignal.timeout(this.options.timeoutMs) })
      .then((answer) => answer.text())
      .catch(() => undefined);
  }

  private async firstAnswer<T>(what: string, attempt: (base: string) => Promise<T>): Promise<T> {
    const failures: Array<{ url: string; failure: LeafClientError }> = [];
    const first = this.preferred;
    for (let i = 0; i < this.urls.length; i++) {
      if (this.closed) throw closedError();
      const index = (first + i) % this.urls.length;
      const url = this.urls[index] as string;
      try {
        const answer = await attempt(url);
        this.preferred = index;
        return answer;
      } catch (error) {
        const failure = error as LeafClientError;
        if (failure.code === 'closed' || (failure.status !== undefined && FINAL_STATUSES.has(failure.status)))
          throw failure;
        failures.push({ url, failure });
        // Other tags' requests start at the next server rather than wait on this one too.
        if (this.preferred === index) this.preferred = (index + 1) % this.urls.length;
      }
    }
    // Every server failed. When those that answered all said the same (say tag_not_found, the others being
    // unreachable), that is the answer.
    const answered = failures.filter(({ failure }) => failure.status !== undefined).map(({ failure }) => failure);
    const same = answered[0];
    if (same !== undefined && answered.every((failure) => failure.code === same.code)) throw same;
    const causes = failures.map(({ url, failure }) => `${url}: ${failure.code} (${failure.message})`);
    throw new LeafClientError('unavailable', `No server gave ${what}: ${causes.join('; ')}`);
  }

  close(): void {
    this.closed = true;
    for (const cancel of [...this.inFlight]) cancel();
  }

  private attempt<T>(url: string, parse: (text: string) => T): Promise<T> {
    const { clock, timeoutMs } = this.options;
    return new Promise<T>((resolve, reject) => {
      const controller = new AbortController();
      let settled = false;
      const settle = (error: LeafClientError | null, answer?: T) => {
        if (settled) return;
        settled = true;
        clock.clearTimeout(timer);
        this.inFlight.delete(cancel);
        if (error !== null) {
          controller.abort();
          reject(error);
        } else resolve(answer as T);
      };
      const cancel = () => settle(closedError());
      const timer = clock.setTimeout(
        () => settle(new LeafClientError('timeout', `${url} did not answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.inFlight.add(cancel);
      this.options
        .fetch(url, { headers: this.headers, signal: controller.signal })
        .then(async (answer) => {
          const text = await answer.text();
          if (answer.status !== 200) throw parseErrorAnswer(answer.status, text);
          return parse(text);
        })
        .then(
          (parsed) => settle(null, parsed),
          (error: unknown) =>
            settle(
              error instanceof LeafClientError
                ? error
                : new LeafClientError('network', `${url}: ${(error as Error)?.message ?? String(error)}`),
            ),
        );
    });
  }
}
