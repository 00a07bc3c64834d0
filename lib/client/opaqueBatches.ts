/**
 * An opaque tag in the client: the nodes refuse it a range lease (its IDs form no runs, and the key stays on the
 * nodes), so the client takes its IDs already permuted, in batches (`?count=N`), and hands them out from memory.
 * An opaque tag can never be strict, so a batch needs no vouch; what is left at close is a gap.
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

  constructor(
    private readonly source: LeaseSource,
    private readonly name: string,
  ) {}

  get buffered(): number {
    return this.ids.length - this.at;
  }

  next(): bigint | Promise<bigint> {
    if (this.closed) throw closedError();
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
  }

  private takeSlow(count: number): Promise<bigint[]> {
    const out = this.ids.slice(this.at);
    this.at = this.ids.length;
    return askInRequests(this.source, this.name, count, false, () => this.closed, out);
  }

  /** One batch more, appended behind what is left. */
  private fill(): Promise<void> {
    this.filling ??= this.source
      .take(this.name, this.size, false)
      .then((got) => {
        if (this.closed) return;
        this.ids = this.ids.slice(this.at).concat(got);
        this.at = 0;
        this.size = Math.min(MAX_BATCH, this.size * 2);
      })
      .finally(() => {
        this.filling = null;
      });
    return this.filling;
  }
}
