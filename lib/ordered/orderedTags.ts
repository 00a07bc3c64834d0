/**
 * Strict tags on this node (docs/design.md#ordered-tags), a layer around the segment engine: which tags are strict
 * and who owns each, as this node's participant last read leaf_order; a request is served here when this node owns
 * the tag, else relayed to its owner, else this node takes the lease. Nothing of it is inside the engine.
 */
import type { Clock } from '../clock';
import { LeafError } from '../errors';
import type { Logger } from '../log';
import { type IdRanges, rangesOfRuns } from '../segment/idRanges';
import { type RegionStride, positionRuns } from '../segment/regionIds';
import { ClientVouches } from './clientVouches';
import { Coalescer } from './coalescer';
import type { Forward, Relayed } from './forwarder';
import type { LeaseTerms, OrderRead, OrderRow, OrderStore, OwnerClaim } from './orderStore';
import { type OwnedEngine, Ownership } from './ownership';
import { OrderingParticipant } from './participant';
import type { ProcIdentity } from './procIdentity';

export interface OrderedTagsOptions {
  store: OrderStore;
  engine: OwnedEngine;
  self: OwnerClaim;
  /** This process, for leaf_participant. */
  identity: ProcIdentity;
  terms: LeaseTerms;
  pollMs: number;
  /** Participants silent this long are removed (LEAF_NODE_PRUNE_MS). */
  pruneMs: number;
  /** How long a client's vouch lasts (LEAF_ORDER_CLIENT_LEASE_MS). */
  clientVouchMs: number;
  forward: Forward;
  /** This node's region: an owner answers IDs, read back here as the region's positions. */
  stride?: RegionStride | null;
  clock: Clock;
  monotonic?: () => number;
  logger: Logger;
}

/** A strict tag's request as a route received it. */
export interface StrictRequest {
  bizTag: string;
  /** 0: one ID. */
  count: number;
  authorization: string | null | undefined;
  /** Answer only if this node owns the tag (the owner route): never relay again. */
  ownerOnly: boolean;
}

/** How a strict tag's request is answered; lib/http/issue.ts renders each. */
export type StrictRoute =
  /** This node owns the tag: take the IDs here, then `confirmServing` if that waited. */
  | { kind: 'serve' }
  /** The tag is not strict (any more): serve it as any tag. */
  | { kind: 'ordinary' }
  /** The owner's IDs for this request, as this node's positions. */
  | { kind: 'ids'; ids: IdRanges }
  /** Any other answer of the owner, passed on as it came. */
  | { kind: 'answer'; relayed: Relayed };

/** What a client's ordering request is answered (GET /api/id/ordering). */
export interface ClientOrdering {
  version: number;
  /** The strict tags the client's credential covers: it holds no lease of these. */
  strict: string[];
  vouchMs: number;
  pollMs: number;
}

/** How often a request re-reads leaf_order, takes over or relays again before it answers 503. */
const ATTEMPTS = 3;

export class OrderedTags {
  private rows = new Map<string, OrderRow>();
  /** The database clock minus the monotonic clock at the last read: the database's time now, estimated. */
  private dbOffset = 0;
  private readonly strict = new Set<string>();
  private readonly ownership: Ownership;
  private readonly participant: OrderingParticipant;
  readonly clients: ClientVouches;
  private readonly monotonic: () => number;
  /** Per owner, tag and credential: the single-ID requests waiting for one relay. */
  private readonly batches = new Map<string, Coalescer>();
  /** Requests this node relayed to an owner. */
  forwarded = 0;

  constructor(private readonly o: OrderedTagsOptions) {
    this.monotonic = o.monotonic ?? (() => performance.now());
    this.ownership = new Ownership({ ...o, monotonic: this.monotonic });
    this.clients = new ClientVouches({ vouchMs: o.clientVouchMs, monotonic: this.monotonic });
    this.participant = new OrderingParticipant({
      store: o.store,
      self: { instanceId: o.self.instanceId, kind: 'node', label: o.self.nodeId, ...o.identity },
      clock: o.clock,
      monotonic: this.monotonic,
      pollMs: o.pollMs,
      readTimeoutMs: o.terms.leaseMs,
      pruneMs: o.pruneMs,
      logger: o.logger,
      apply: (read, readAt) => this.apply(read, readAt),
      // A client this node vouches for may still hold leases of a tag made strict since: not acknowledged for it.
      ackable: (applied) => Math.min(applied, this.clients.lowestAcked()),
    });
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

  /** Strict tags whose change is still waiting for acknowledgements. */
  get pending(): number {
    let n = 0;
    for (const bizTag of this.strict) if (this.rows.get(bizTag)?.completeAt === 0) n++;
    return n;
  }

  get appliedVersion(): number {
    return this.participant.appliedVersion;
  }

  /** Registers this process, reads leaf_order once: nothing is served before. */
  async start(): Promise<void> {
    await this.participant.start();
    this.ownership.start();
  }

  isStrict(bizTag: string): boolean {
    return this.strict.has(bizTag);
  }

  mayServe(bizTag: string): boolean {
    return this.ownership.mayServe(bizTag);
  }

  /** The epoch of this node's live lease on `bizTag`, or null when it may not serve the tag now. */
  servingEpoch(bizTag: string): number | null {
    return this.ownership.servingEpoch(bizTag);
  }

  /**
   * After IDs were taken for a request that waited: still the owner under the same lease, else they are a gap and the
   * request is retried (a lease lost and taken again meanwhile may have a successor's IDs between).
   */
  confirmServing(bizTag: string, epoch: number): void {
    if (this.ownership.servingEpoch(bizTag) !== epoch) throw notOwner(bizTag);
  }

  /** Reads leaf_order now, or joins the read in flight; never rejects. */
  poll(): Promise<void> {
    return this.participant.poll();
  }

  private apply(read: OrderRead, readAt: number): void {
    this.dbOffset = read.dbNowMs - this.monotonic();
    const next = new Map(read.rows.map((r) => [r.bizTag, r]));
    for (const bizTag of this.rows.keys()) {
      if (next.has(bizTag)) continue;
      // Deleted with its tag: no ordering, no lease.
      this.strict.delete(bizTag);
      this.ownership.forget(bizTag);
    }
    for (const row of read.rows) {
      const before = this.rows.get(row.bizTag);
      if (row.ordering === 'none') {
        this.strict.delete(row.bizTag);
        this.ownership.forget(row.bizTag);
        continue;
      }
      // A new change to strict: nothing this node held of the tag is served again.
      if (!this.strict.has(row.bizTag) || before?.version !== row.version) this.o.engine.restart(row.bizTag);
      this.strict.add(row.bizTag);
      this.ownership.confirm(row.bizTag, row.epoch, row.ownerInstance, readAt);
    }
    this.rows = next;
  }

  /** The owner as the last read saw it, while its lease (plus the margin) has not run out by the database's clock. */
  private liveOwner(row: OrderRow): OrderRow | null {
    if (row.ownerInstance === null || row.ownerAddress === null) return null;
    const dbNow = this.monotonic() + this.dbOffset;
    return row.leaseExpiresAt + this.o.terms.marginMs >= dbNow ? row : null;
  }

  /**
   * Served here while this node owns the tag; else relayed to the live owner; else this node takes the lease. A
   * few rounds (each re-reads leaf_order), then 503 `owner_unavailable`: a handover takes at most a lease.
   */
  async route(request: StrictRequest): Promise<StrictRoute> {
    const { bizTag } = request;
    let cause: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (this.ownership.mayServe(bizTag)) return { kind: 'serve' };
      const row = this.rows.get(bizTag);
      if (!this.strict.has(bizTag) || row === undefined) return { kind: 'ordinary' };
      if (row.completeAt === 0) {
        // Pending as this node last read it: it may have completed since (another process wrote it).
        if (attempt === ATTEMPTS - 1) throw this.pendingError(row);
        await this.poll();
        continue;
      }
      const owner = this.liveOwner(row);
      if (owner !== null && owner.ownerInstance !== this.o.self.instanceId) {
        if (request.ownerOnly) throw notOwner(bizTag);
        try {
          const relayed = await this.relay(owner.ownerAddress as string, request);
          if (relayed !== null) return relayed;
        } catch (error) {
          cause = error; // the owner did not answer: it may be gone, so its lease may be ours to take soon
        }
      } else if (await this.ownership.acquire(bizTag, row.epoch)) {
        continue;
      }
      await this.poll();
    }
    throw new LeafError('owner_unavailable', `No owner can serve strict tag "${bizTag}" right now; try again.`, {
      cause,
      retryAfterSeconds: 1,
    });
  }

  private pendingError(row: OrderRow): LeafError {
    return new LeafError(
      'owner_unavailable',
      `Tag "${row.bizTag}" is turning strict: not every process has confirmed it yet (docs/operations.md#making-a-tag-strict); try again.`,
      { retryAfterSeconds: 1 },
    );
  }

  /** The owner's IDs or its other answer, or null when it no longer owns the tag (the caller reads leaf_order again). */
  private async relay(address: string, request: StrictRequest): Promise<StrictRoute | null> {
    const { bizTag, count, authorization } = request;
    const wanted = Math.max(1, count);
    const { relayed, ids } = await this.coalescer(address, bizTag, authorization).take(wanted);
    if (relayed.status === 200 && ids !== null && ids.count === wanted) {
      this.forwarded++;
      return { kind: 'ids', ids };
    }
    return relayed.status === 503 && errorCodeOf(relayed.body) === 'not_owner' ? null : { kind: 'answer', relayed };
  }

  private coalescer(address: string, bizTag: string, authorization: string | null | undefined): Coalescer {
    const key = `${address} ${bizTag} ${authorization ?? ''}`;
    let batch = this.batches.get(key);
    if (batch === undefined) {
      // Dropped once idle: owners move, and a key per old owner would stay forever.
      batch = new Coalescer(
        (n) => this.o.forward(address, ownerRunsPath(bizTag, n), authorization),
        (body) => rangesOfRuns(positionRuns(runsOf(body), this.o.stride ?? null)),
        () => this.batches.delete(key),
      );
      this.batches.set(key, batch);
    }
    return batch;
  }

  /** A client's ordering request: its vouch renewed, the version and the strict tags its credential covers. */
  clientOrdering(clientId: string, acked: number, covers: (bizTag: string) => boolean): ClientOrdering {
    this.clients.renew(clientId, acked);
    return {
      version: this.participant.appliedVersion,
      strict: [...this.strict].filter(covers).sort(),
      vouchMs: this.o.clientVouchMs,
      pollMs: this.o.pollMs,
    };
  }

  /** A client that closed holds nothing: no change waits for it. */
  clientGone(clientId: string): void {
    this.clients.forget(clientId);
  }

  owned(): string[] {
    return this.ownership.owned();
  }

  /** After the engine stopped serving: every lease given up, then this process's row removed (each bounded). */
  async close(timeoutMs: number): Promise<void> {
    await this.ownership.release(timeoutMs);
    await this.participant.stop(timeoutMs);
  }
}

export function notOwner(bizTag: string): LeafError {
  return new LeafError('not_owner', `This node does not own strict tag "${bizTag}" now; try again.`, {
    retryAfterSeconds: 1,
  });
}

/** The owner's route for `count` IDs of `bizTag` as runs. */
function ownerRunsPath(bizTag: string, count: number): string {
  return `/api/id/owner/${encodeURIComponent(bizTag)}/runs?count=${count}`;
}

/** The runs of an owner's `/runs` answer: `{"tag","count","stride"?,"ranges":[{"start","end"}…]}`. */
function runsOf(body: string): Array<{ start: string; end: string }> {
  return (JSON.parse(body) as { ranges: Array<{ start: string; end: string }> }).ranges;
}

/** The code of an owner's JSON error answer, if it is one. */
function errorCodeOf(body: string): string | undefined {
  try {
    const code = (JSON.parse(body) as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Why a range lease of a strict tag is refused: a client handing out its own range would serve out of order. */
export function strictRangeRefused(bizTag: string): LeafError {
  return new LeafError(
    'strict_tag_range',
    `Tag "${bizTag}" is strict: IDs come one request at a time from its owner, never as a range lease.`,
  );
}
