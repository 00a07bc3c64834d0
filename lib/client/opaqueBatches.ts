/**
 * An opaque tag in the client: the nodes refuse it a range lease (its IDs form no runs, and the key stays on the
 * nodes), so the client takes its IDs already permuted, in batches (`?count=N`), and hands them out from memory.
 * An opaque tag can never be strict, so a batch needs no vouch; what is left at close is a gap. A batch is held like
 * a lease: its IDs go out only within the node's `validMs` of asking for it, then the rest is a gap.
 */
import { closedError } from './errors';
import { MAX_REQUEST, askInRequests } from './askInRequests';
import type { LeaseSource } from './leafTag';

/** The first batch; each refill doubles it up to the batch route's limit. */
const FIRST_BATCH = 100;
const MAX_BATCH = MAX_REQUEST;

export class OpaqueBatches {
  private ids: bigint[] = [];
  private at = 0;
  private size = FIRST_BATCH;
  /** The one request in flight, shared by every caller that finds the queue short. */
  private filling: Promise<void> | null = null;
  private closed = false;
  /** IDs ever appended, and per batch still held: where it ends in that count and when it expires. */
  private appended = 0;
  private held: Array<{ end: number; expiresAt: number }> = [];

  constructor(
    private readonly source: LeaseSource,
    private readonly name: string,
    private readonly monotonic: () => number,
  ) {}

  get buffered(): number {
    return this.ids.length - this.at;
  }

  next(): bigint | Promise<bigint> {
    if (this.closed) throw closedError();
    if (this.held.length > 0) this.expire();
    if (this.at < this.ids.length) {
      const id = this.ids[this.at++] as bigint;
      // A tenth left: the next batch is asked for in the background.
      if (this.buffered === Math.floor(this.size / 10)) this.fill().catch(() => undefined);
      return id;
    }
    return this.fill().then(() => this.next());
  }

  take(count: number): bigint[] | Promise<bigint[]> {
    if (this.closed) throw closedError();
    if (this.held.length > 0) this.expire();
    if (this.buffered >= count) {
      const out = this.ids.slice(this.at, this.at + count);
      this.at += count;
      return out;
    }
    return this.takeSlow(count);
  }

  close(): void {
    this.closed = true;
    this.ids = [];
    this.at = 0;
    this.held = [];
  }

  /** Drops what is left of each batch past its validity (they are FIFO: the oldest is served first). */
  private expire(): void {
    const now = this.monotonic();
    while (this.held.length > 0) {
      const first = this.held[0] as { end: number; expiresAt: number };
      const served = this.appended - this.buffered;
      if (first.end > served && now < first.expiresAt) return;
      if (first.end > served) this.at += first.end - served;
      this.held.shift();
    }
  }

  private takeSlow(count: number): Promise<bigint[]> {
    const out = this.ids.slice(this.at);
    this.at = this.ids.length;
    return askInRequests(this.source, this.name, count, false, () => this.closed, out);
  }

  /** One batch more, appended behind what is left. */
  private fill(): Promise<void> {
    // Before the request: the node takes the IDs after this, so the validity counts from no later than it does.
    const askedAt = this.monotonic();
    this.filling ??= this.source
      .batch(this.name, this.size)
      .then(({ ids: got, validMs }) => {
        if (this.closed) return;
        this.ids = this.ids.slice(this.at).concat(got);
        this.at = 0;
        this.appended += got.length;
        if (validMs !== null) this.held.push({ end: this.appended, expiresAt: askedAt + validMs });
        this.size = Math.min(MAX_BATCH, this.size * 2);
      })
      .finally(() => {
        this.filling = null;
      });
    return this.filling;
  }
}
