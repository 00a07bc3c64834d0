/**
 * Single-ID requests for one strict tag, relayed to its owner in batches: while one relay is in flight the next
 * requests wait, then go as one `?count=N`. Every request in a batch arrived before the batch left, and each answer
 * waits for its batch, so a request sent after an answer came back is in a later batch, answered above it
 * (docs/design.md#ordered-tags).
 */
import type { Relayed } from './forwarder';

interface Waiter {
  resolve(outcome: BatchOutcome): void;
  reject(error: unknown): void;
}

/** The relayed answer of a batch, and this request's ID in it (null when the owner did not answer 200). */
export interface BatchOutcome {
  relayed: Relayed;
  id: string | null;
}

/** The largest batch one relay carries (the owner route's count limit is far above). */
const MAX_BATCH = 1_000;

export class Coalescer {
  private queue: Waiter[] = [];
  private inFlight = false;

  /** `send(count)` asks the owner for `count` IDs (0: one, answered as `{"id"}`). */
  constructor(private readonly send: (count: number) => Promise<Relayed>) {}

  take(): Promise<BatchOutcome> {
    return new Promise<BatchOutcome>((resolve, reject) => {
      this.queue.push({ resolve, reject });
      if (!this.inFlight) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.inFlight = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        const relayed = await this.send(batch.length === 1 ? 0 : batch.length);
        const ids = relayed.status === 200 ? idsOf(relayed.body) : [];
        batch.forEach((w, i) => w.resolve({ relayed, id: ids[i] ?? null }));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.inFlight = false;
  }
}

/** The IDs of an owner's answer, `{"tag","id"}` or `{"tag","ids":[…]}`, as decimal strings. */
function idsOf(body: string): string[] {
  const parsed = JSON.parse(body) as { id?: string; ids?: string[] };
  return parsed.ids ?? (parsed.id === undefined ? [] : [parsed.id]);
}
