import { randomUUID } from 'node:crypto';
import { type Clock, type TimerHandle, systemClock } from '../clock';
import { LeafError } from '../errors';
import { type Logger, silentLogger } from '../log';
import type { NodeRegistration, NodeRow, NodeStore } from './nodeStore';
import { nodeState, nodeView } from './nodeView';
import { decodeTagsOf, encodeSnapshot } from './snapshotCodec';
import type { NodeSnapshot, NodeState, NodeView } from './types';

export interface NodeRegistryOptions {
  store: NodeStore;
  nodeId: string;
  /** This process, the same id in every table that names it (snowflake workers, ordering); default a new UUID. */
  instanceId?: string;
  /** host:port where this node listens. */
  address: string;
  version: string;
  heartbeatMs: number;
  goneMs: number;
  pruneMs: number;
  /** This node's state now, for the next heartbeat. */
  snapshot: () => NodeSnapshot;
  clock?: Clock;
  logger?: Logger;
  /** Told once when another process has taken this node's identity: stop using it (the snowflake worker). */
  onLost?: () => void;
}

/** `lost`: another process took this identity (this one was silent past goneMs); it no longer heartbeats. */
export type RegistrationState = 'registering' | 'up' | 'lost' | 'stopped';

/** Reads of the registry are shared for this long: a console polling every second costs one query. */
const READ_CACHE_MS = 1_000;
/** Stale rows are deleted by whichever node beats, at most this often. */
const PRUNE_EVERY_MS = 60_000;
/** Claim rounds at start (a round ends when the row changed hands under us) before refusing. */
const REGISTER_ROUNDS = 3;

/** This process's `leaf_node` row: identity at start, the heartbeat, the goodbye, fleet reads (docs/design.md#fleet-registry). */
export class NodeRegistry {
  readonly nodeId: string;
  readonly instanceId: string;
  readonly address: string;
  readonly version: string;
  readonly heartbeatMs: number;
  readonly goneMs: number;
  /** ms since the Unix epoch, this process's clock. */
  readonly startedAt: number;
  private readonly store: NodeStore;
  private readonly pruneMs: number;
  private readonly snapshot: () => NodeSnapshot;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly onLost: (() => void) | undefined;
  private state: RegistrationState = 'registering';
  private timer: TimerHandle | null = null;
  private beating = false;
  /** The snapshot the row holds, to skip rewriting an unchanged one; null when unsure (after a failed beat). */
  private written: string | null = null;
  private lastPruneAt = 0;
  /** Since when beats fail (one log line per outage), and how many. */
  private outage: { since: number; beats: number } | null = null;
  private reading: Promise<NodeView[]> | null = null;
  private cached: { at: number; views: NodeView[] } | null = null;
  private countsReading: Promise<Record<NodeState, number>> | null = null;
  private readonly lostSignal: { promise: Promise<NodeRow | undefined>; resolve(taker: NodeRow | undefined): void };
  private cachedCounts: { at: number; counts: Record<NodeState, number> } | null = null;
  private cachedRows: { at: number; read: { dbNow: number; rows: NodeRow[] } } | null = null;
  private rowsReading: Promise<{ dbNow: number; rows: NodeRow[] }> | null = null;

  constructor(options: NodeRegistryOptions) {
    this.store = options.store;
    this.nodeId = options.nodeId;
    this.instanceId = options.instanceId ?? randomUUID();
    this.address = options.address;
    this.version = options.version;
    this.heartbeatMs = options.heartbeatMs;
    this.goneMs = options.goneMs;
    this.pruneMs = options.pruneMs;
    this.snapshot = options.snapshot;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.onLost = options.onLost;
    this.startedAt = this.clock.now();
    let resolve!: (taker: NodeRow | undefined) => void;
    const promise = new Promise<NodeRow | undefined>((r) => (resolve = r));
    this.lostSignal = { promise, resolve };
  }

  /** Settles when another process took this node's identity (it found this one silent): the server exits, naming it. */
  whenLost(): Promise<NodeRow | undefined> {
    return this.lostSignal.promise;
  }

  get registration(): RegistrationState {
    return this.state;
  }

  /** A beat and a half (at least a beat and a second): a busy live holder still beats, a kill -9 restart waits only this. */
  get watchMs(): number {
    return this.heartbeatMs + Math.max(1_000, Math.floor(this.heartbeatMs / 2));
  }

  /** Throws invalid_config naming the other process when the identity is live elsewhere, or store_unavailable. */
  async start(): Promise<void> {
    await this.register();
    if (this.state !== 'up') return; // stopped while registering
    this.timer = this.clock.setInterval(() => void this.beat(), this.heartbeatMs);
  }

  private async register(): Promise<void> {
    let holder: NodeRow | undefined;
    for (let round = 0; round < REGISTER_ROUNDS; round++) {
      if (await this.store.registerNode(this.registrationRow(), this.goneMs)) return this.registered(holder);
      const seen = await this.store.getNode(this.nodeId);
      if (seen === undefined || seen.state === 'stopped') continue; // it changed between the two: claim again
      this.logger.log('warn', 'node_id_held', {
        nodeId: this.nodeId,
        heldBy: seen.instanceId,
        address: seen.address,
        watchMs: this.watchMs,
      });
      await this.sleep(this.watchMs);
      if (this.state === 'stopped') return;
      const now = await this.store.getNode(this.nodeId);
      if (now === undefined || now.state === 'stopped') continue;
      if (now.instanceId !== seen.instanceId || now.heartbeatAt !== seen.heartbeatAt) {
        holder = now;
        break; // its heartbeat moved (or a new process took it): alive
      }
      // Silent for a whole heartbeat and more: its process is dead. Take the row only as we saw it.
      if (await this.store.takeOverNode(this.registrationRow(), seen)) return this.registered(seen);
    }
    throw await this.conflict(holder ?? (await this.store.getNode(this.nodeId)));
  }

  private registered(previous: NodeRow | undefined): void {
    if (this.state === 'stopped') return;
    this.state = 'up';
    this.written = null;
    this.logger.log(previous === undefined ? 'info' : 'warn', 'node_registered', {
      nodeId: this.nodeId,
      instanceId: this.instanceId,
      address: this.address,
      ...(previous === undefined ? {} : { tookOverFrom: previous.instanceId }),
    });
  }

  private async conflict(holder: NodeRow | undefined): Promise<LeafError> {
    let age = '';
    if (holder !== undefined) {
      const { dbNow } = await this.store.listNodes(false).catch(() => ({ dbNow: NaN }));
      if (Number.isFinite(dbNow))
        age = `, heartbeat ${Math.max(0, Math.round((dbNow - holder.heartbeatAt) / 1000))} s ago`;
    }
    const where =
      holder === undefined
        ? 'another process'
        : `another process at ${holder.address} (instance ${holder.instanceId}${age})`;
    return new LeafError(
      'invalid_config',
      `node id "${this.nodeId}" is live in ${where}; give each node its own LEAF_NODE_ID`,
    );
  }

  private registrationRow(): NodeRegistration {
    return {
      nodeId: this.nodeId,
      instanceId: this.instanceId,
      address: this.address,
      version: this.version,
      startedAt: this.startedAt,
      snapshot: encodeSnapshot(this.snapshot()),
    };
  }

  /** One heartbeat: one UPDATE of our row (the snapshot only when it changed). Never overlaps the previous one. */
  async beat(): Promise<void> {
    if (this.beating || this.state !== 'up') return;
    this.beating = true;
    try {
      const encoded = encodeSnapshot(this.snapshot());
      const ours = await this.store.beatNode(this.nodeId, this.instanceId, encoded === this.written ? null : encoded);
      if (this.outage !== null) {
        this.logger.log('info', 'node_heartbeat_recovered', {
          nodeId: this.nodeId,
          failedBeats: this.outage.beats,
          outageMs: this.clock.now() - this.outage.since,
        });
        this.outage = null;
      }
      if (!ours) return this.lost();
      this.written = encoded;
      if (this.clock.now() - this.lastPruneAt >= PRUNE_EVERY_MS) await this.prune();
    } catch (error) {
      this.written = null; // the failed write may or may not have landed
      if (this.outage === null) {
        this.outage = { since: this.clock.now(), beats: 0 };
        this.logger.log('warn', 'node_heartbeat_failed', { nodeId: this.nodeId, error });
      }
      this.outage.beats++;
    } finally {
      this.beating = false;
    }
  }

  private lost(): void {
    if (this.state !== 'up') return;
    this.state = 'lost';
    this.clock.clearInterval(this.timer ?? undefined);
    this.timer = null;
    this.logger.log('error', 'node_identity_lost', {
      nodeId: this.nodeId,
      instanceId: this.instanceId,
      message: `node id "${this.nodeId}" was taken by another process while this one could not heartbeat; this process stops using it`,
    });
    this.onLost?.();
    this.store.getNode(this.nodeId).then(
      (taker) => this.lostSignal.resolve(taker),
      () => this.lostSignal.resolve(undefined),
    );
  }

  private async prune(): Promise<void> {
    this.lastPruneAt = this.clock.now();
    const pruned = await this.store.pruneNodes(this.pruneMs);
    if (pruned > 0) this.logger.log('info', 'nodes_pruned', { count: pruned });
  }

  /** Graceful stop: no more beats, and the row says `stopped` at once (a restart may take it without waiting). */
  async stop(): Promise<void> {
    const was = this.state;
    this.state = 'stopped';
    this.clock.clearInterval(this.timer ?? undefined);
    this.timer = null;
    if (was !== 'up') return;
    try {
      await this.store.stopNode(this.nodeId, this.instanceId);
    } catch (error) {
      this.logger.log('warn', 'node_stop_failed', { nodeId: this.nodeId, error }); // it shows as gone later instead
    }
  }

  /** Every node in the registry, sorted by node id. Shared: at most one read per second, one at a time. */
  nodes(): Promise<NodeView[]> {
    if (this.cached !== null && this.clock.now() - this.cached.at < READ_CACHE_MS)
      return Promise.resolve(this.cached.views);
    this.reading ??= this.store
      .listNodes(true)
      .then(({ dbNow, rows }) => {
        const views = rows
          .map((r) => nodeView(r, dbNow, this.goneMs))
          .sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));
        this.cached = { at: this.clock.now(), views };
        this.cachedCounts = { at: this.cached.at, counts: countStates(views) };
        return views;
      })
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }

  /**
   * Every node with only `bizTags` in its tags (a page of the tag list): the rows are read at most once a second,
   * and each snapshot is searched for those tags rather than decoded whole (so `snowflake` is not read: off).
   */
  async nodesWith(bizTags: readonly string[]): Promise<NodeView[]> {
    const { dbNow, rows } = await this.rows();
    return rows
      .map((r) => nodeView(r, dbNow, this.goneMs, decodeTagsOf(r.snapshot, bizTags)))
      .sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));
  }

  private rows(): Promise<{ dbNow: number; rows: NodeRow[] }> {
    if (this.cachedRows !== null && this.clock.now() - this.cachedRows.at < READ_CACHE_MS)
      return Promise.resolve(this.cachedRows.read);
    this.rowsReading ??= this.store
      .listNodes(true)
      .then((read) => {
        this.cachedRows = { at: this.clock.now(), read };
        return read;
      })
      .finally(() => {
        this.rowsReading = null;
      });
    return this.rowsReading;
  }

  /** Nodes by state, without their snapshots (cheap: for a metrics scrape). Shared like nodes(). */
  stateCounts(): Promise<Record<NodeState, number>> {
    if (this.cachedCounts !== null && this.clock.now() - this.cachedCounts.at < READ_CACHE_MS)
      return Promise.resolve(this.cachedCounts.counts);
    this.countsReading ??= this.store
      .listNodes(false)
      .then(({ dbNow, rows }) => {
        const counts = countStates(rows.map((r) => ({ state: nodeState(r, dbNow, this.goneMs) })));
        this.cachedCounts = { at: this.clock.now(), counts };
        return counts;
      })
      .finally(() => {
        this.countsReading = null;
      });
    return this.countsReading;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.setTimeout(resolve, ms));
  }
}

function countStates(nodes: Array<{ state: NodeState }>): Record<NodeState, number> {
  const counts: Record<NodeState, number> = { up: 0, gone: 0, stopped: 0 };
  for (const n of nodes) counts[n.state] += 1;
  return counts;
}
