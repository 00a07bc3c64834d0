import { randomUUID } from 'node:crypto';
import { type Clock, type TimerHandle, systemClock } from '../clock';
import { LeafError, isLeafError } from '../errors';
import { type Logger, silentLogger } from '../log';
import type { WorkerStore } from './workerStore';
import { checkFloor } from './floor';
import { SnowflakeGenerator, validate } from './generator';
import { LEAF_EPOCH_MS, SnowflakeLayout } from './layout';
import { lifetimeOf } from './lifetime';
import { WorkerIdSet } from './workerIds';

/** A snowflake worker id held by this process. */
export interface WorkerLease {
  workerId: number;
  /** The fence: the highest timestamp (ms) any earlier holder of this id may have used. Start above it. */
  lastTimestampMs: number;
}

/** How many expired leases to try before giving up on this round (others may be racing for them). */
const EXPIRED_ATTEMPTS = 16;

/** Its own previous id, else a never-used one, else an expired one: each claim one conditional statement. */
export async function acquireWorker(
  store: WorkerStore,
  nodeId: string,
  instanceId: string,
  leaseMs: number,
  workerIds: WorkerIdSet,
): Promise<WorkerLease> {
  const rows = (await store.listWorkers()).filter((r) => workerIds.has(r.workerId));
  const fenced = async (workerId: number): Promise<WorkerLease> => {
    const fence = await store.readWorkerFence(workerId, instanceId);
    if (fence === undefined)
      throw new LeafError('snowflake_unavailable', `Worker id ${workerId} was lost right after it was claimed.`);
    return { workerId, lastTimestampMs: fence };
  };
  for (const row of rows.filter((r) => r.nodeId === nodeId)) {
    if (await store.claimOwnWorker(row.workerId, nodeId, instanceId, leaseMs)) return fenced(row.workerId);
  }
  const used = new Set(rows.map((r) => r.workerId));
  for (const id of workerIds.ids) {
    if (!used.has(id) && (await store.claimFreeWorker(id, nodeId, instanceId, leaseMs))) return fenced(id);
  }
  const byExpiry = rows.filter((r) => r.nodeId !== nodeId).sort((a, b) => a.leaseExpiresAt - b.leaseExpiresAt);
  for (const row of byExpiry.slice(0, EXPIRED_ATTEMPTS)) {
    if (await store.claimExpiredWorker(row.workerId, nodeId, instanceId, leaseMs)) return fenced(row.workerId);
  }
  throw new LeafError(
    'snowflake_unavailable',
    `All ${workerIds.size} worker ids of LEAF_WORKER_IDS=${workerIds.text} are leased by live nodes.`,
  );
}

export interface SnowflakeNodeOptions {
  store: WorkerStore;
  /** Who this node is: host:port, or a configured name. A restart with the same identity gets its id back. */
  nodeId: string;
  /** This process (the registry's instanceId); default a new UUID. */
  instanceId?: string;
  epochMs: number;
  /** LEAF_SNOWFLAKE_LAYOUT (with region bits for LEAF_REGIONS); default Leaf's. */
  layout?: SnowflakeLayout;
  /** LEAF_REGION, carried in the layout's region bits; default 0. */
  region?: number;
  /** LEAF_SNOWFLAKE_MIN_ID: every ID sorts above it; a start whose clock is not past it is refused. */
  minId?: bigint | null;
  /** Lease length; renewed every third of it. A node that cannot renew stops issuing within this time. */
  leaseMs?: number;
  /** The only worker ids it may lease (LEAF_WORKER_IDS); default all the layout has. */
  workerIds?: WorkerIdSet;
  clock?: Clock;
  logger?: Logger;
  random?: () => number;
}

/** `fencing`: waits out a previous holder's reservation; `unrenewed`: refuses until a renewal succeeds. */
export type SnowflakeState = 'starting' | 'fencing' | 'ready' | 'unrenewed' | 'lost' | 'stopped';

export interface SnowflakeStatus {
  state: SnowflakeState;
  nodeId: string;
  workerId: number | null;
  /** The ids it may lease, canonical (`512-1023`). */
  workerIds: string;
  epoch: string;
  /** The layout's name as LEAF_SNOWFLAKE_LAYOUT takes it (`leaf`, `sonyflake`, `js-safe`, or the custom fields). */
  layout: string;
  /** For people: `41 bits of 1 ms | 10 worker | 12 sequence`. */
  layoutBits: string;
  /** The region its IDs carry (LEAF_REGION; 0 with regions off). */
  region: number;
  /** When the layout's time runs out for this epoch (null: past year 275760), and the years until then. */
  endsAt: string | null;
  yearsLeft: number;
  /** `leaf` when the epoch is Leaf's (LEAF_SNOWFLAKE_EPOCH=leaf): its IDs and Leaf's share one number line. */
  epochPreset: 'leaf' | null;
  /** The floor (LEAF_SNOWFLAKE_MIN_ID) as a decimal string, or null. */
  minId: string | null;
  lastTimestamp: string | null;
  leaseRenewedAt: string | null;
  /** While fencing: when snowflake IDs resume. */
  fenceUntil: string | null;
  lastError: string | null;
}

/** A worker's lease and generator: issues only below the reservation, so a successor starts above (docs/design.md#snowflake). */
export class SnowflakeNode {
  readonly nodeId: string;
  readonly epochMs: number;
  readonly layout: SnowflakeLayout;
  readonly region: number;
  readonly minId: bigint | null;
  readonly workerIds: WorkerIdSet;
  readonly instanceId: string;
  private readonly store: WorkerStore;
  private readonly leaseMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly random: (() => number) | undefined;
  private generator: SnowflakeGenerator | null = null;
  private state: SnowflakeState = 'starting';
  private reservedUntil = 0;
  /** While non-zero: the fence of the acquired id is still ahead of the clock (after a crash restart). */
  private fenceUntil = 0;
  private renewedAt: number | null = null;
  private lastError: Error | null = null;
  private timer: TimerHandle | null = null;

  constructor(options: SnowflakeNodeOptions) {
    this.store = options.store;
    this.nodeId = options.nodeId;
    this.instanceId = options.instanceId ?? randomUUID();
    this.epochMs = options.epochMs;
    this.layout = options.layout ?? SnowflakeLayout.LEAF;
    this.region = options.region ?? 0;
    this.minId = options.minId ?? null;
    this.leaseMs = options.leaseMs ?? 10_000;
    this.workerIds = options.workerIds ?? WorkerIdSet.all(this.layout.maxWorkerId);
    if (this.workerIds.max > this.layout.maxWorkerId)
      throw new LeafError('invalid_config', `worker ids ${this.workerIds.text} do not fit layout ${this.layout.text}.`);
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.random = options.random;
    // A bad epoch or region fails at construction, not on a request.
    validate(this.layout, 0, this.epochMs, this.clock.now(), this.region);
    checkFloor(this.minId, this.epochMs, this.clock.now(), this.layout); // so does a floor this clock has not passed
  }

  /** Acquires a worker id (resolves either way) and keeps the lease renewed until `stop()`. */
  async start(): Promise<void> {
    await this.tick();
  }

  nextId(): bigint | Promise<bigint> {
    const g = this.generator;
    if (g === null) throw this.unavailable();
    if (this.fenceUntil !== 0) this.checkFence(g);
    return g.nextId();
  }

  async take(count: number): Promise<bigint[]> {
    const g = this.generator;
    if (g === null) throw this.unavailable();
    if (this.fenceUntil !== 0) this.checkFence(g);
    return g.take(count);
  }

  /** Says plainly why it refuses while the fence is ahead; a wait the generator absorbs (≤ 5 ms) is left to it. */
  private checkFence(g: SnowflakeGenerator): void {
    const wait = this.fenceUntil - this.clock.now();
    if (wait > 5) {
      throw new LeafError(
        'snowflake_unavailable',
        `Worker id ${g.workerId} may have been used up to ${new Date(this.fenceUntil).toISOString()} by its previous holder; snowflake IDs resume in ${wait} ms.`,
      );
    }
    this.fenceUntil = 0;
    if (this.state === 'fencing') this.state = 'ready';
  }

  get workerId(): number | null {
    return this.generator?.workerId ?? null;
  }

  status(): SnowflakeStatus {
    const g = this.generator;
    // The generator refuses past the reservation by itself; say so instead of 'ready'.
    const now = this.clock.now();
    // A fence that has passed is 'ready' whether or not an ID was asked for since (the switch itself is lazy).
    const state = this.state === 'fencing' && this.fenceUntil !== 0 && now >= this.fenceUntil ? 'ready' : this.state;
    const unrenewed = state === 'ready' && g !== null && now >= this.reservedUntil;
    return {
      state: unrenewed ? 'unrenewed' : state,
      nodeId: this.nodeId,
      workerId: g?.workerId ?? null,
      workerIds: this.workerIds.text,
      epoch: new Date(this.epochMs).toISOString(),
      layout: this.layout.text,
      layoutBits: this.layout.describe(),
      region: this.region,
      ...lifetimeOf(this.layout, this.epochMs, now),
      epochPreset: this.epochMs === LEAF_EPOCH_MS ? 'leaf' : null,
      minId: this.minId === null ? null : this.minId.toString(),
      lastTimestamp: g && g.lastTimestampMs >= this.epochMs ? new Date(g.lastTimestampMs).toISOString() : null,
      leaseRenewedAt: this.renewedAt === null ? null : new Date(this.renewedAt).toISOString(),
      fenceUntil: this.fenceUntil === 0 ? null : new Date(this.fenceUntil).toISOString(),
      lastError: this.lastError?.message ?? null,
    };
  }

  /** Stops issuing, then releases the lease with the fence at the last timestamp used, so a restart is immediate. */
  async stop(): Promise<void> {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    const g = this.generator;
    this.generator = null;
    this.state = 'stopped';
    if (g !== null) {
      g.retire(); // before reading its last timestamp: nothing may be issued after the fence we release
      try {
        await this.store.releaseWorker(g.workerId, this.instanceId, Math.max(g.lastTimestampMs, 0));
      } catch (error) {
        // The lease then simply expires, with its fence at the reservation: still safe.
        this.logger.log('warn', 'worker_release_failed', { workerId: g.workerId, error });
      }
    }
  }

  private schedule(ms: number): void {
    if (this.state === 'stopped') return;
    this.timer = this.clock.setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    try {
      if (this.generator === null) await this.acquire();
      else await this.renew(this.generator);
      this.schedule(Math.max(1, Math.floor(this.leaseMs / 3)));
    } catch (error) {
      this.lastError = error as Error;
      this.logger.log('warn', 'worker_lease_failed', { nodeId: this.nodeId, workerId: this.workerId, error });
      this.schedule(Math.max(1, Math.min(1_000, Math.floor(this.leaseMs / 3))));
    }
  }

  private async acquire(): Promise<void> {
    const lease = await acquireWorker(this.store, this.nodeId, this.instanceId, this.leaseMs, this.workerIds);
    const reserveUntil = this.clock.now() + this.leaseMs;
    if (!(await this.store.renewWorker(lease.workerId, this.instanceId, this.leaseMs, reserveUntil))) {
      throw new LeafError('snowflake_unavailable', `Worker id ${lease.workerId} was taken over during start.`);
    }
    if (this.state === 'stopped') return;
    this.generator = new SnowflakeGenerator({
      workerId: lease.workerId,
      epochMs: this.epochMs,
      layout: this.layout,
      region: this.region,
      minId: this.minId,
      clock: this.clock,
      random: this.random,
      lastTimestampMs: lease.lastTimestampMs,
      issueUntilMs: reserveUntil,
    });
    this.reservedUntil = reserveUntil;
    this.renewedAt = this.clock.now();
    this.fenceUntil = lease.lastTimestampMs > this.clock.now() ? lease.lastTimestampMs : 0;
    this.state = this.fenceUntil === 0 ? 'ready' : 'fencing';
    this.lastError = null;
    const behind = lease.lastTimestampMs - this.clock.now();
    this.logger.log(behind > 0 ? 'warn' : 'info', 'worker_acquired', {
      nodeId: this.nodeId,
      workerId: lease.workerId,
      fence: lease.lastTimestampMs,
      ...(behind > 0 ? { waitingMs: behind } : {}),
    });
  }

  private async renew(g: SnowflakeGenerator): Promise<void> {
    const reserveUntil = Math.max(this.reservedUntil, this.clock.now() + this.leaseMs);
    if (await this.store.renewWorker(g.workerId, this.instanceId, this.leaseMs, reserveUntil)) {
      g.extendUntil(reserveUntil);
      this.reservedUntil = reserveUntil;
      this.renewedAt = this.clock.now();
      return;
    }
    // Someone else holds our id now (we were partitioned past expiry): never issue with it again.
    g.retire();
    this.generator = null;
    this.state = 'lost';
    this.logger.log('error', 'worker_lease_lost', { nodeId: this.nodeId, workerId: g.workerId });
    throw new LeafError('snowflake_unavailable', `Worker id ${g.workerId} lease was lost; re-acquiring.`);
  }

  private unavailable(): LeafError {
    if (this.lastError !== null && isLeafError(this.lastError)) return this.lastError;
    const reason =
      this.state === 'stopped' ? 'stopped' : this.state === 'lost' ? 'lost its worker id' : 'has no worker id yet';
    return new LeafError('snowflake_unavailable', `Snowflake mode ${reason}; try again shortly.`, {
      cause: this.lastError ?? undefined,
    });
  }
}
