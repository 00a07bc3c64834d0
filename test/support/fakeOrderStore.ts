/**
 * In-memory leaf_order and leaf_participant with the stores' rules (lib/store/rows/order.ts), on `clock` as the
 * database clock; `failWith` fails every call.
 */
import type { AuditStamp } from '../../lib/audit';
import { tagNotFound } from '../../lib/errors';
import type {
  LeaseTerms,
  NewParticipant,
  OrderRead,
  OrderRow,
  OrderStore,
  Ordering,
  OrderingChange,
  OwnerClaim,
  Participant,
  ParticipantRead,
} from '../../lib/ordered/orderStore';
import type { FakeClock } from './fakes';

export class FakeOrderStore implements OrderStore {
  readonly rows = new Map<string, OrderRow>();
  readonly tags = new Set<string>();
  readonly participants = new Map<string, Participant>();
  version = 0;
  failWith: Error | null = null;
  releases: Array<{ bizTag: string; epoch: number }> = [];

  constructor(private readonly clock: FakeClock) {}

  private check(): void {
    if (this.failWith !== null) throw this.failWith;
  }

  async readOrder(): Promise<OrderRead> {
    this.check();
    return {
      rows: [...this.rows.values()].map((r) => ({ ...r })),
      version: this.version,
      dbNowMs: this.clock.now(),
    };
  }

  async setOrdering(bizTag: string, ordering: Ordering, _audit?: AuditStamp): Promise<OrderingChange> {
    this.check();
    if (!this.tags.has(bizTag)) throw tagNotFound(bizTag);
    const row = this.rows.get(bizTag);
    const before: Ordering = row === undefined || row.ordering === 'none' ? 'none' : 'strict';
    if (before === ordering) return { before, after: ordering, version: this.version };
    const version = ++this.version;
    const now = this.clock.now();
    if (ordering === 'none') Object.assign(row as OrderRow, { ordering, changedAt: now, version, completeAt: 0 });
    else if (row === undefined)
      this.rows.set(bizTag, {
        bizTag,
        ordering,
        changedAt: now,
        version,
        completeAt: 0,
        epoch: 0,
        ownerNode: null,
        ownerInstance: null,
        ownerAddress: null,
        leaseExpiresAt: 0,
        acquiredAt: 0,
      });
    else
      Object.assign(row, {
        ordering,
        changedAt: now,
        version,
        completeAt: 0,
        epoch: row.epoch + 1,
        ownerNode: null,
        ownerInstance: null,
        ownerAddress: null,
      });
    return { before, after: ordering, version };
  }

  /** A tag deleted with its row (lib/store deletes leaf_order's row with the tag's). */
  deleteTag(bizTag: string): void {
    this.tags.delete(bizTag);
    this.rows.delete(bizTag);
  }

  async completeStrict(bizTag: string, version: number): Promise<boolean> {
    this.check();
    const row = this.rows.get(bizTag);
    if (row === undefined || row.ordering !== 'strict' || row.version !== version || row.completeAt !== 0) return false;
    if ([...this.participants.values()].some((p) => p.ackedVersion < version)) return false;
    row.completeAt = this.clock.now();
    return true;
  }

  async acquireOwner(bizTag: string, c: OwnerClaim, t: LeaseTerms, seenEpoch: number): Promise<boolean> {
    this.check();
    const row = this.rows.get(bizTag);
    const now = this.clock.now();
    if (row === undefined || row.epoch !== seenEpoch || row.ordering !== 'strict' || row.completeAt === 0) return false;
    if (!(row.leaseExpiresAt + t.marginMs < now || row.ownerInstance === c.instanceId)) return false;
    Object.assign(row, {
      epoch: seenEpoch + 1,
      ownerNode: c.nodeId,
      ownerInstance: c.instanceId,
      ownerAddress: c.address,
      leaseExpiresAt: now + t.leaseMs,
      acquiredAt: now,
    });
    return true;
  }

  async renewOwner(bizTag: string, instanceId: string, epoch: number, leaseMs: number): Promise<boolean> {
    this.check();
    const row = this.rows.get(bizTag);
    const now = this.clock.now();
    if (row === undefined || row.ownerInstance !== instanceId || row.epoch !== epoch || row.leaseExpiresAt < now)
      return false;
    row.leaseExpiresAt = now + leaseMs;
    return true;
  }

  async releaseOwner(bizTag: string, instanceId: string, epoch: number): Promise<void> {
    this.check();
    const row = this.rows.get(bizTag);
    this.releases.push({ bizTag, epoch });
    if (row !== undefined && row.ownerInstance === instanceId && row.epoch === epoch) row.leaseExpiresAt = 0;
  }

  async registerParticipant(p: NewParticipant): Promise<void> {
    this.check();
    const now = this.clock.now();
    if (!this.participants.has(p.instanceId))
      this.participants.set(p.instanceId, { ...p, ackedVersion: 0, startedAt: now, seenAt: now });
  }

  async ackParticipant(instanceId: string, version: number): Promise<boolean> {
    this.check();
    const p = this.participants.get(instanceId);
    if (p === undefined) return false;
    p.ackedVersion = Math.max(p.ackedVersion, version);
    p.seenAt = this.clock.now();
    return true;
  }

  async removeParticipant(instanceId: string): Promise<boolean> {
    this.check();
    return this.participants.delete(instanceId);
  }

  async listParticipants(): Promise<ParticipantRead> {
    this.check();
    return { participants: [...this.participants.values()].map((p) => ({ ...p })), dbNowMs: this.clock.now() };
  }

  async pruneParticipants(silentMs: number): Promise<number> {
    this.check();
    let n = 0;
    for (const [id, p] of this.participants)
      if (p.seenAt < this.clock.now() - silentMs && this.participants.delete(id)) n++;
    return n;
  }
}
