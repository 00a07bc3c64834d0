/** In-memory leaf_order with the stores' lease rules, on `clock` as the database clock; `failWith` fails every call. */
import type { AuditStamp } from '../../lib/audit';
import { tagNotFound } from '../../lib/errors';
import type { LeaseTerms, OrderRead, OrderRow, OrderStore, Ordering, OwnerClaim } from '../../lib/ordered/orderStore';
import type { FakeClock } from './fakes';

export class FakeOrderStore implements OrderStore {
  readonly rows = new Map<string, OrderRow>();
  readonly tags = new Set<string>();
  failWith: Error | null = null;
  releases: Array<{ bizTag: string; epoch: number }> = [];

  constructor(private readonly clock: FakeClock) {}

  private check(): void {
    if (this.failWith !== null) throw this.failWith;
  }

  async readOrder(): Promise<OrderRead> {
    this.check();
    return { rows: [...this.rows.values()].map((r) => ({ ...r })), dbNowMs: this.clock.now() };
  }

  async setOrdering(bizTag: string, ordering: Ordering, _audit?: AuditStamp) {
    this.check();
    if (!this.tags.has(bizTag)) throw tagNotFound(bizTag);
    const before: Ordering = this.rows.has(bizTag) ? 'strict' : 'none';
    if (ordering === 'none') this.rows.delete(bizTag);
    else if (before === 'none')
      this.rows.set(bizTag, {
        bizTag,
        strictSince: this.clock.now(),
        epoch: 0,
        ownerNode: null,
        ownerInstance: null,
        ownerAddress: null,
        leaseExpiresAt: 0,
        acquiredAt: 0,
      });
    return { before, after: ordering };
  }

  async acquireOwner(bizTag: string, c: OwnerClaim, t: LeaseTerms, seenEpoch: number): Promise<boolean> {
    this.check();
    const row = this.rows.get(bizTag);
    const now = this.clock.now();
    if (row === undefined || row.epoch !== seenEpoch || row.strictSince + t.settleMs > now) return false;
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
}
