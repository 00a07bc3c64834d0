import type { Clock, TimerHandle } from '@/lib/clock';
import { LeafError } from '@/lib/errors';
import { type Id, MAX_ID, idBigint, toId } from '@/lib/segment/id';
import { DEFAULT_SEMANTICS, type Semantics } from '@/lib/segment/semantics';
import { idSpaceExhausted, planCreate, planDefaultSwitch } from '@/lib/store/tagRules';
import type { Allocation, SegmentSource, TagInfo } from '@/lib/segment/segmentSource';
import type { NewTag, TagRow, TagStore } from '@/lib/segment/tagStore';
import type { SemanticsSettings, SemanticsStore } from '@/lib/segment/semanticsStore';
import type { LeafStore } from '@/lib/store/leafStore';
import type { WorkerRow, WorkerStore } from '@/lib/snowflake/workerStore';
import type { OpaqueEncoding } from '@/lib/opaque/encoding';

interface FakeTimer {
  id: number;
  dueAt: number;
  /** 0 for a one-shot timer. */
  everyMs: number;
  fn: () => void;
}

/** A sleep that moves the fake clock instead of waiting, and records each wait, so waits are asserted without real time. */
export function clockSleep(clock: FakeClock): { sleep: (ms: number) => Promise<void>; sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
  };
}

/**
 * A clock that moves only when told. `advance` fires every timer due on the way, in due order, with `now()`
 * reading each timer's due time while it runs, as real time would.
 */
export class FakeClock implements Clock {
  private readonly timers = new Map<number, FakeTimer>();
  private nextTimerId = 1;

  constructor(public t = 1_800_000_000_000) {}
  now = (): number => this.t;

  setTimeout = (fn: () => void, ms: number): TimerHandle => this.addTimer(fn, ms, 0);
  setInterval = (fn: () => void, ms: number): TimerHandle => this.addTimer(fn, ms, Math.max(1, ms));
  clearTimeout = (handle: TimerHandle | undefined): void => {
    if (handle !== undefined) this.timers.delete(handle as unknown as number);
  };
  clearInterval = this.clearTimeout;

  /** Timers started and not yet fired or cleared. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  advance(ms: number): void {
    const until = this.t + ms;
    for (let due = this.nextDue(until); due !== undefined; due = this.nextDue(until)) {
      this.t = Math.max(this.t, due.dueAt);
      if (due.everyMs > 0) due.dueAt += due.everyMs;
      else this.timers.delete(due.id);
      due.fn();
    }
    this.t = until;
  }

  private addTimer(fn: () => void, ms: number, everyMs: number): TimerHandle {
    const id = this.nextTimerId++;
    this.timers.set(id, { id, dueAt: this.t + Math.max(0, ms), everyMs, fn });
    return id as unknown as TimerHandle;
  }

  private nextDue(until: number): FakeTimer | undefined {
    let first: FakeTimer | undefined;
    for (const timer of this.timers.values()) {
      if (timer.dueAt <= until && (first === undefined || timer.dueAt < first.dueAt)) first = timer;
    }
    return first;
  }
}

interface Deferred {
  resolve(): void;
  reject(error: Error): void;
}

/**
 * In-memory leaf_alloc with knobs: `hold` makes allocations wait until released, `failWith` makes them fail,
 * `allocateCalls` records the step each call asked for. It is the segment engine's source (`store.tags` of a runtime),
 * and of the rest only what the tests on it read: a tag row, the semantics, and ping / close for health and metrics.
 */
export class FakeStore
  implements
    SegmentSource,
    Pick<TagStore, 'getTag' | 'getEncoding' | 'listEncodings'>,
    Pick<SemanticsStore, 'getSemantics' | 'tagSemantics'>,
    Pick<LeafStore, 'dialect' | 'ping' | 'close'>
{
  readonly dialect = 'sqlite' as const;
  /** max_id exact, as the stores read it: a number up to 2^53−1, a bigint above. */
  readonly rows = new Map<string, { maxId: Id; step: number }>();
  readonly allocateCalls: Array<{ bizTag: string; step: number | undefined }> = [];
  listCalls = 0;
  /** leaf_semantics: the fleet default and tags' own rows, read by every claim. */
  defaultSemantics: Semantics = DEFAULT_SEMANTICS;
  readonly ownSemantics = new Map<string, Semantics>();
  failWith: Error | null = null;
  hold = false;
  readonly giveBackCalls: Array<{ bizTag: string; claimedMaxId: Id; newMaxId: Id }> = [];
  giveBackFails: Error | null = null;
  giveBackHangs = false;
  private held: Deferred[] = [];

  constructor(tags: Array<{ bizTag: string; step: number; maxId?: Id }> = []) {
    for (const t of tags) this.rows.set(t.bizTag, { maxId: t.maxId ?? 1, step: t.step });
  }

  async listTags(): Promise<TagInfo[]> {
    this.listCalls++;
    if (this.failWith) throw this.failWith;
    return [...this.rows].map(([bizTag, r]) => ({ bizTag, step: r.step }));
  }

  async getTag(bizTag: string): Promise<TagRow | undefined> {
    const r = this.rows.get(bizTag);
    return r && { bizTag, maxId: r.maxId, step: r.step, description: null, updateTime: new Date(0) };
  }

  /** leaf_encoding: opaque tags by name (none unless a test sets one). */
  readonly encodings = new Map<string, OpaqueEncoding>();

  async getEncoding(bizTag: string): Promise<OpaqueEncoding | null> {
    return this.encodings.get(bizTag) ?? null;
  }

  async listEncodings(): Promise<Map<string, OpaqueEncoding>> {
    return new Map(this.encodings);
  }

  async allocate(bizTag: string, step?: number): Promise<Allocation> {
    this.allocateCalls.push({ bizTag, step });
    if (this.hold) await new Promise<void>((resolve, reject) => this.held.push({ resolve, reject }));
    if (this.failWith) throw this.failWith;
    const r = this.rows.get(bizTag);
    if (!r) throw new LeafError('tag_not_found', `Tag "${bizTag}" does not exist.`);
    const added = step ?? r.step;
    // The stores' guard: max_id is a signed BIGINT.
    const after = idBigint(r.maxId) + BigInt(added);
    if (after > MAX_ID) throw idSpaceExhausted(bizTag);
    r.maxId = toId(after);
    return { bizTag, maxId: r.maxId, step: added, semantics: this.ownSemantics.get(bizTag) ?? this.defaultSemantics };
  }

  /** The stores' compare-and-set: `giveBackFails` makes it fail, `giveBackHangs` makes it never answer. */
  async giveBack(bizTag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean> {
    this.giveBackCalls.push({ bizTag, claimedMaxId, newMaxId });
    if (this.giveBackHangs) return new Promise<boolean>(() => {});
    if (this.giveBackFails) throw this.giveBackFails;
    const r = this.rows.get(bizTag);
    if (r === undefined || idBigint(r.maxId) !== idBigint(claimedMaxId)) return false;
    r.maxId = newMaxId;
    return true;
  }

  async tagSemantics(bizTag: string): Promise<Semantics> {
    return this.ownSemantics.get(bizTag) ?? this.defaultSemantics;
  }

  async getSemantics(): Promise<SemanticsSettings> {
    return { default: this.defaultSemantics, tags: Object.fromEntries(this.ownSemantics) };
  }

  /** The stores' switch of the fleet default (tagRules.ts): followers going leaf-ts → leaf skip one ID. */
  switchDefault(to: Semantics): void {
    const { bump } = planDefaultSwitch(this.defaultSemantics, to);
    for (const [bizTag, r] of this.rows)
      if (!this.ownSemantics.has(bizTag)) r.maxId = toId(idBigint(r.maxId) + BigInt(bump));
    this.defaultSemantics = to;
  }

  /** The stores' create (tagRules.ts), without tombstones: max_id as given, else 1. */
  async createTag(tag: NewTag): Promise<void> {
    this.rows.set(tag.bizTag, { maxId: planCreate(tag, undefined), step: tag.step });
  }

  async ping(): Promise<void> {
    if (this.failWith) throw this.failWith;
  }

  async close(): Promise<void> {}

  /** Lets every held allocation proceed. */
  release(): void {
    this.hold = false;
    for (const d of this.held.splice(0)) d.resolve();
  }

  get heldCount(): number {
    return this.held.length;
  }
}

/**
 * A call to an engine's `nextId`/`takeIds` (a value when the buffers can serve, else a promise; a refusal thrown at
 * once) as a promise that rejects instead, for tests that wait on the outcome whichever way it comes.
 */
export function outcome<T>(call: () => T | Promise<T>): Promise<T> {
  return new Promise<T>((resolve) => resolve(call()));
}

/** Lets pending promise callbacks (loads landing) run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/**
 * In-memory leaf_worker with the stores' claim rules, on `clock` as the database clock. `failWith` makes every
 * call fail (a partition, or a killed process's connection).
 */
export class FakeWorkerStore implements WorkerStore {
  readonly rows = new Map<number, WorkerRow>();
  failWith: Error | null = null;

  constructor(private readonly clock: FakeClock) {}

  async listWorkers(): Promise<WorkerRow[]> {
    this.check();
    return [...this.rows.values()].sort((a, b) => a.workerId - b.workerId).map((r) => ({ ...r }));
  }

  async claimOwnWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    this.check();
    const r = this.rows.get(workerId);
    if (r === undefined || r.nodeId !== nodeId) return false;
    Object.assign(r, { instanceId, leaseExpiresAt: this.clock.now() + leaseMs, heartbeatAt: this.clock.now() });
    return true;
  }

  async claimFreeWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    this.check();
    if (this.rows.has(workerId)) return false;
    const now = this.clock.now();
    this.rows.set(workerId, {
      workerId,
      nodeId,
      instanceId,
      leaseExpiresAt: now + leaseMs,
      lastTimestamp: 0,
      heartbeatAt: now,
    });
    return true;
  }

  async claimExpiredWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    this.check();
    const r = this.rows.get(workerId);
    if (r === undefined || r.leaseExpiresAt >= this.clock.now()) return false;
    Object.assign(r, { nodeId, instanceId, leaseExpiresAt: this.clock.now() + leaseMs, heartbeatAt: this.clock.now() });
    return true;
  }

  async readWorkerFence(workerId: number, instanceId: string): Promise<number | undefined> {
    this.check();
    const r = this.rows.get(workerId);
    return r !== undefined && r.instanceId === instanceId ? r.lastTimestamp : undefined;
  }

  async renewWorker(workerId: number, instanceId: string, leaseMs: number, reserveUntilMs: number): Promise<boolean> {
    this.check();
    const r = this.rows.get(workerId);
    if (r === undefined || r.instanceId !== instanceId) return false;
    Object.assign(r, {
      leaseExpiresAt: this.clock.now() + leaseMs,
      heartbeatAt: this.clock.now(),
      lastTimestamp: Math.max(r.lastTimestamp, reserveUntilMs),
    });
    return true;
  }

  async releaseWorker(workerId: number, instanceId: string, lastTimestampMs: number): Promise<void> {
    this.check();
    const r = this.rows.get(workerId);
    if (r !== undefined && r.instanceId === instanceId)
      Object.assign(r, { leaseExpiresAt: 0, lastTimestamp: lastTimestampMs });
  }

  private check(): void {
    if (this.failWith) throw this.failWith;
  }
}
