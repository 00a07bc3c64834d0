/**
 * Requests for one strict tag, relayed to its owner in batches: while one relay is in flight the next requests
 * wait, then go as one. Every request in a batch arrived before the batch left, and each answer waits for its batch,
 * so a request sent after an answer came back is in a later batch, answered above it (docs/design.md#ordered-tags).
 * The owner answers runs (`/runs`), split here in arrival order; each answer is rendered on this node.
 */
import { MAX_COUNT } from '../bizTag';
import { type IdRanges, takeFront } from '../segment/idRanges';
import type { Relayed } from './forwarder';

interface Waiter {
  /** IDs asked for (a single ID: 1). */
  count: number;
  resolve(outcome: BatchOutcome): void;
  reject(error: unknown): void;
}

/** The owner's answer to a batch, and this request's IDs in it (null when the owner did not answer 200). */
export interface BatchOutcome {
  relayed: Relayed;
  ids: IdRanges | null;
}

export class Coalescer {
  private queue: Waiter[] = [];
  private inFlight = false;

  /**
   * `send(count)` asks the owner for `count` IDs as runs, `parse` reads a 200 of it as this node's positions;
   * `onIdle` when nothing waits or travels any more.
   */
  constructor(
    private readonly send: (count: number) => Promise<Relayed>,
    private readonly parse: (body: string) => IdRanges,
    private readonly onIdle: () => void = () => undefined,
  ) {}

  take(count: number): Promise<BatchOutcome> {
    return new Promise<BatchOutcome>((resolve, reject) => {
      this.queue.push({ count, resolve, reject });
      if (!this.inFlight) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.inFlight = true;
    while (this.queue.length > 0) {
      const batch = this.nextBatch();
      try {
        const relayed = await this.send(batch.reduce((n, w) => n + w.count, 0));
        const all = relayed.status === 200 ? this.parse(relayed.body) : null;
        for (const w of batch) w.resolve({ relayed, ids: all === null ? null : takeFront(all, w.count) });
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.inFlight = false;
    this.onIdle();
  }

  /** The waiting requests, oldest first, up to what one owner request may ask for. */
  private nextBatch(): Waiter[] {
    let total = 0;
    let n = 0;
    while (n < this.queue.length && total + (this.queue[n] as Waiter).count <= MAX_COUNT)
      total += this.queue[n++]!.count;
    return this.queue.splice(0, Math.max(1, n));
  }
}
