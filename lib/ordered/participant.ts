/**
 * One process's part in ordering changes (docs/design.md#ordered-tags): registered in leaf_participant before its
 * first read of leaf_order, it reads leaf_order every poll, applies what it read, and only then acknowledges the
 * version read. A change to strict completes — any participant writes complete_at — once no registered process is
 * left below its version. Processes killed without a goodbye are removed when another process on their machine can
 * prove them dead (procIdentity.ts), or by an operator, or after LEAF_NODE_PRUNE_MS of silence.
 */
import type { Clock, TimerHandle } from '../clock';
import { TIMED_OUT, within } from '../deadline';
import type { Logger } from '../log';
import type { NewParticipant, OrderRead, OrderStore } from './orderStore';
import { provedDead } from './procIdentity';

export interface ParticipantOptions {
  store: OrderStore;
  self: NewParticipant;
  clock: Clock;
  /** Milliseconds that only ever grow. */
  monotonic: () => number;
  pollMs: number;
  /** A read of leaf_order that takes longer fails (and is tried again at the next poll). */
  readTimeoutMs: number;
  /** Participants silent this long are removed (LEAF_NODE_PRUNE_MS): long dead, or lost for good. */
  pruneMs: number;
  logger: Logger;
  /** Puts the read (begun at `readAt`, monotonic ms) in force: from its return on, this process serves as it says. */
  apply(read: OrderRead, readAt: number): void;
  /** The highest version this process may acknowledge (its clients may hold it back); default what it applied. */
  ackable?(applied: number): number;
}

/** seen_at is refreshed at least this often, so the console shows a live process as seen lately. */
const SEEN_EVERY_MS = 10_000;

export class OrderingParticipant {
  private timer: TimerHandle | null = null;
  private polling: Promise<void> | null = null;
  private applied = 0;
  private acked = 0;
  private lastAckAt = 0;
  private stopped = false;
  /** The last read put in force (null before the first). */
  latest: OrderRead | null = null;

  constructor(private readonly o: ParticipantOptions) {}

  get appliedVersion(): number {
    return this.applied;
  }

  get ackedVersion(): number {
    return this.acked;
  }

  /** Registers, then reads and applies leaf_order once (so nothing is served before): throws when the store does. */
  async start(): Promise<void> {
    await this.o.store.registerParticipant(this.o.self);
    await this.read(true);
    this.timer ??= this.o.clock.setInterval(() => void this.poll(), this.o.pollMs);
  }

  /** Reads leaf_order now, or joins the read in flight; never rejects. */
  poll(): Promise<void> {
    this.polling ??= this.read(false)
      .catch((error: unknown) => this.o.logger.log('warn', 'order_poll_failed', { error }))
      .finally(() => {
        this.polling = null;
      });
    return this.polling;
  }

  private async read(first: boolean): Promise<void> {
    if (this.stopped) return;
    const readAt = this.o.monotonic();
    const read = await within(this.o.clock, this.o.readTimeoutMs, this.o.store.readOrder());
    if (read === TIMED_OUT) throw new Error(`leaf_order did not answer within ${this.o.readTimeoutMs} ms`);
    if (this.stopped) return;
    // Reads are one at a time, so an older version is a lagging host's: what is in force never goes back.
    if (read.version < this.applied) return;
    this.o.apply(read, readAt);
    this.latest = read;
    this.applied = read.version;
    if (first) return this.acknowledge(true);
    await this.acknowledge(false);
    await this.completePending(read);
  }

  /** Writes the version this process may acknowledge, when it moved or seen_at is due; re-registers if removed. */
  private async acknowledge(force: boolean): Promise<void> {
    if (this.stopped) return;
    const target = Math.min(this.applied, this.o.ackable?.(this.applied) ?? this.applied);
    const now = this.o.clock.now();
    if (!force && target <= this.acked && now - this.lastAckAt < SEEN_EVERY_MS) return;
    if (await this.o.store.ackParticipant(this.o.self.instanceId, target)) {
      this.acked = Math.max(this.acked, target);
      this.lastAckAt = now;
      return;
    }
    // Removed while alive (an operator's forget, a prune after a long pause): join again, with what is in force.
    this.o.logger.log('warn', 'participant_reregistered', { instanceId: this.o.self.instanceId, version: target });
    await this.o.store.registerParticipant(this.o.self);
    await this.o.store.ackParticipant(this.o.self.instanceId, target);
    this.acked = target;
    this.lastAckAt = now;
  }

  /** Changes to strict this process has acknowledged: completed if nobody is left behind; the dead removed first. */
  private async completePending(read: OrderRead): Promise<void> {
    const pending = read.rows.filter((r) => r.ordering === 'strict' && r.completeAt === 0 && r.version <= this.acked);
    if (pending.length === 0) return;
    await this.removeDead();
    for (const row of pending) {
      if (await this.o.store.completeStrict(row.bizTag, row.version))
        this.o.logger.log('info', 'ordering_complete', { bizTag: row.bizTag, version: row.version });
    }
  }

  /** Participants this process can prove dead (same machine), and those silent past the prune time. */
  private async removeDead(): Promise<void> {
    const { participants } = await this.o.store.listParticipants();
    for (const p of participants) {
      if (p.instanceId === this.o.self.instanceId || !provedDead(p.procKey)) continue;
      if (await this.o.store.removeParticipant(p.instanceId))
        this.o.logger.log('info', 'participant_removed', { instanceId: p.instanceId, label: p.label, reason: 'dead' });
    }
    const pruned = await this.o.store.pruneParticipants(this.o.pruneMs);
    if (pruned > 0) this.o.logger.log('warn', 'participants_pruned', { count: pruned, silentMs: this.o.pruneMs });
  }

  /** After this process stopped serving: no more polls, and its row goes (bounded), so no change waits for it. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    this.o.clock.clearInterval(this.timer ?? undefined);
    this.timer = null;
    try {
      const done = await within(this.o.clock, timeoutMs, this.o.store.removeParticipant(this.o.self.instanceId));
      if (done === TIMED_OUT) throw new Error(`no answer within ${timeoutMs} ms`);
    } catch (error) {
      // Left behind: the next process on this machine proves it dead, or an operator forgets it.
      this.o.logger.log('warn', 'participant_goodbye_failed', { instanceId: this.o.self.instanceId, error });
    }
  }
}
