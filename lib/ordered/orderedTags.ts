/**
 * Strict tags on this node (docs/design.md#ordered-tags): which tags are strict and who owns each, read from
 * leaf_order every `pollMs`; a request served here when this node owns the tag, else relayed to its owner.
 */
import type { Clock, TimerHandle } from '../clock';
import { TIMED_OUT, within } from '../deadline';
import { LeafError } from '../errors';
import type { Logger } from '../log';
import type { ServeGate } from '../segment/serveGate';
import type { IdRanges } from '../segment/idRanges';
import { Coalescer } from './coalescer';
import type { Forward, Relayed } from './forwarder';
import type { LeaseTerms, OrderRow, OrderStore, OwnerClaim } from './orderStore';
import { type OwnedEngine, Ownership } from './ownership';

export interface OrderedTagsOptions {
  store: OrderStore;
  engine: OwnedEngine;
  self: OwnerClaim;
  terms: LeaseTerms;
  pollMs: number;
  forward: Forward;
  clock: Clock;
  monotonic?: () => number;
  logger: Logger;
}

/** One strict request, as the route received it, and how its answer is made (lib/http builds every answer). */
export interface StrictRequest<A> {
  bizTag: string;
  /** 0: one ID. */
  count: number;
  authorization: string | null | undefined;
  /** Answer only if this node owns the tag (the owner route): never relay again. */
  ownerOnly: boolean;
  /** Served here, by this node as owner. */
  serveHere(): A | Promise<A>;
  /** The IDs the owner gave for this request (exactly `count`, or one). */
  fromIds(ids: IdRanges): A;
  /** Any other answer of the owner, passed on as it came. */
  passOn(relayed: Relayed): A;
}

/** How often a request re-reads leaf_order, takes over or relays again before it answers 503. */
const ATTEMPTS = 3;

export class OrderedTags implements ServeGate {
  private rows = new Map<string, OrderRow>();
  /** The database clock minus the monotonic clock at the last read: the database's time now, estimated. */
  private dbOffset = 0;
  private readonly strict = new Set<string>();
  private readonly ownership: Ownership;
  private readonly monotonic: () => number;
  private timer: TimerHandle | null = null;
  /** Per owner, tag and credential: the single-ID requests waiting for one relay. */
  private readonly batches = new Map<string, Coalescer>();
  private polling: Promise<void> | null = null;
  /** Requests this node relayed to an owner. */
  forwarded = 0;

  constructor(private readonly o: OrderedTagsOptions) {
    this.monotonic = o.monotonic ?? (() => performance.now());
    this.ownership = new Ownership({ ...o, monotonic: this.monotonic });
  }

  /** How many tags are strict: 0 keeps every request off this path with one read. */
  get size(): number {
    return this.strict.size;
  }

  get acquired(): number {
    return this.ownership.acquired;
  }

  get lost(): number {
    return this.ownership.lost;
  }

  async start(): Promise<void> {
    this.timer ??= this.o.clock.setInterval(() => void this.poll(), this.o.pollMs);
    this.ownership.start();
    await this.poll();
  }

  isStrict(bizTag: string): boolean {
    return this.strict.has(bizTag);
  }

  mayServe(bizTag: string): boolean {
    return this.ownership.mayServe(bizTag);
  }

  refusal(bizTag: string): LeafError {
    return new LeafError('not_owner', `This node does not own strict tag "${bizTag}" now; try again.`, {
      retryAfterSeconds: 1,
    });
  }

  heardStrict(bizTag: string): void {
    this.strict.add(bizTag);
  }

  /** Reads leaf_order now, or joins the read in flight; never rejects. */
  poll(): Promise<void> {
    this.polling ??= this.read().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  private async read(): Promise<void> {
    try {
      const before = this.monotonic();
      // Bounded, so a stalled database cannot stop the polls for good (a request waits on one at most this long).
      const read = await within(this.o.clock, this.o.terms.leaseMs, this.o.store.readOrder());
      if (read === TIMED_OUT) throw new Error(`leaf_order did not answer within ${this.o.terms.leaseMs} ms`);
      const { rows, dbNowMs } = read;
      this.dbOffset = dbNowMs - before;
      const next = new Map(rows.map((r) => [r.bizTag, r]));
      for (const bizTag of this.strict) {
        if (next.has(bizTag)) continue;
        this.strict.delete(bizTag);
        this.ownership.confirm(bizTag, null, null);
        this.o.engine.setStrict(bizTag, false);
      }
      for (const row of rows) {
        if (!this.strict.has(row.bizTag)) {
          this.strict.add(row.bizTag);
          this.o.engine.setStrict(row.bizTag, true);
        }
        this.ownership.confirm(row.bizTag, row.epoch, row.ownerInstance);
      }
      this.rows = next;
    } catch (error) {
      this.o.logger.log('warn', 'order_poll_failed', { error });
    }
  }

  /** The owner as the last read saw it, while its lease (plus the margin) has not run out by the database's clock. */
  private liveOwner(bizTag: string): OrderRow | null {
    const row = this.rows.get(bizTag);
    if (row === undefined || row.ownerInstance === null || row.ownerAddress === null) return null;
    const dbNow = this.monotonic() + this.dbOffset;
    return row.leaseExpiresAt + this.o.terms.marginMs >= dbNow ? row : null;
  }

  /**
   * Served here while this node owns the tag; else relayed to the live owner; else this node takes the lease. A
   * few rounds (each re-reads leaf_order), then 503 `owner_unavailable`: a handover takes at most a lease.
   */
  async issue<A>(request: StrictRequest<A>): Promise<A> {
    const { bizTag } = request;
    let cause: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (this.ownership.mayServe(bizTag)) return request.serveHere();
      const owner = this.liveOwner(bizTag);
      if (owner !== null && owner.ownerInstance !== this.o.self.instanceId) {
        if (request.ownerOnly) throw this.refusal(bizTag);
        try {
          const relayed = await this.relay(owner.ownerAddress as string, request);
          if (relayed !== null) return relayed;
        } catch (error) {
          cause = error; // the owner did not answer: it may be gone, so its lease may be ours to take soon
        }
      } else if (await this.ownership.acquire(bizTag, this.rows.get(bizTag)?.epoch ?? 0)) {
        continue;
      }
      await this.poll();
    }
    throw new LeafError('owner_unavailable', `No owner can serve strict tag "${bizTag}" right now; try again.`, {
      cause,
      retryAfterSeconds: 1,
    });
  }

  /** The owner's answer, or null when it no longer owns the tag (so the caller reads leaf_order again). */
  private async relay<A>(address: string, request: StrictRequest<A>): Promise<A | null> {
    const { bizTag, count, authorization } = request;
    const wanted = Math.max(1, count);
    const { relayed, ids } = await this.coalescer(address, bizTag, authorization).take(wanted);
    if (relayed.status === 200 && ids !== null && ids.count === wanted) {
      this.forwarded++;
      return request.fromIds(ids);
    }
    return relayed.status === 503 && relayed.body.includes('"not_owner"') ? null : request.passOn(relayed);
  }

  private coalescer(address: string, bizTag: string, authorization: string | null | undefined): Coalescer {
    const key = `${address} ${bizTag} ${authorization ?? ''}`;
    let batch = this.batches.get(key);
    if (batch === undefined) {
      // Dropped once idle: owners move, and a key per old owner would stay forever.
      batch = new Coalescer(
        (n) => this.o.forward(address, ownerRunsPath(bizTag, n), authorization),
        () => this.batches.delete(key),
      );
      this.batches.set(key, batch);
    }
    return batch;
  }

  owned(): string[] {
    return this.ownership.owned();
  }

  /** After the engine stopped serving: polling ends and every lease is given up (bounded). */
  async close(timeoutMs: number): Promise<void> {
    this.o.clock.clearInterval(this.timer ?? undefined);
    this.timer = null;
    await this.ownership.release(timeoutMs);
  }
}

/** The owner's route for `count` IDs of `bizTag` as runs. */
function ownerRunsPath(bizTag: string, count: number): string {
  return `/api/id/owner/${encodeURIComponent(bizTag)}/runs?count=${count}`;
}
