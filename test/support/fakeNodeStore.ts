import type { NodeRegistration, NodeRow, NodeStore } from '@/lib/fleet/nodeStore';
import type { FakeClock } from './fakes';

/**
 * In-memory leaf_node with the stores' claim rules, on `clock` as the database clock. `failWith` makes every call
 * fail (the database down); `writes` counts row writes and `snapshotWrites` those that rewrote the snapshot.
 */
export class FakeNodeStore implements NodeStore {
  readonly rows = new Map<string, NodeRow>();
  failWith: Error | null = null;
  writes = 0;
  snapshotWrites = 0;

  constructor(private readonly clock: FakeClock) {}

  async registerNode(reg: NodeRegistration, goneMs: number): Promise<boolean> {
    this.check();
    const row = this.rows.get(reg.nodeId);
    const now = this.clock.now();
    if (
      row !== undefined &&
      row.instanceId !== reg.instanceId &&
      row.state !== 'stopped' &&
      !(row.heartbeatAt < now - goneMs)
    )
      return false;
    this.put({ ...reg, heartbeatAt: now, state: 'up' });
    return true;
  }

  async takeOverNode(reg: NodeRegistration, seen: Pick<NodeRow, 'instanceId' | 'heartbeatAt'>): Promise<boolean> {
    this.check();
    const row = this.rows.get(reg.nodeId);
    if (row === undefined || row.instanceId !== seen.instanceId || row.heartbeatAt !== seen.heartbeatAt) return false;
    this.put({ ...reg, heartbeatAt: this.clock.now(), state: 'up' });
    return true;
  }

  async beatNode(nodeId: string, instanceId: string, snapshot: string | null): Promise<boolean> {
    this.check();
    const row = this.rows.get(nodeId);
    if (row === undefined || row.instanceId !== instanceId) return false;
    this.writes++;
    if (snapshot !== null) this.snapshotWrites++;
    this.rows.set(nodeId, { ...row, heartbeatAt: this.clock.now(), state: 'up', snapshot: snapshot ?? row.snapshot });
    return true;
  }

  async stopNode(nodeId: string, instanceId: string): Promise<void> {
    this.check();
    const row = this.rows.get(nodeId);
    if (row !== undefined && row.instanceId === instanceId) this.rows.set(nodeId, { ...row, state: 'stopped' });
  }

  async getNode(nodeId: string): Promise<NodeRow | undefined> {
    this.check();
    return this.rows.get(nodeId);
  }

  async listNodes(withSnapshots = true): Promise<{ dbNow: number; rows: NodeRow[] }> {
    this.check();
    const rows = [...this.rows.values()].map((r) => (withSnapshots ? r : { ...r, snapshot: '' }));
    return { dbNow: this.clock.now(), rows };
  }

  async pruneNodes(olderThanMs: number): Promise<number> {
    this.check();
    let n = 0;
    for (const [id, r] of this.rows) {
      if (r.heartbeatAt < this.clock.now() - olderThanMs) {
        this.rows.delete(id);
        n++;
      }
    }
    return n;
  }

  /** Another process's heartbeat on a row (a live twin). */
  beatAs(nodeId: string): void {
    const row = this.rows.get(nodeId);
    if (row !== undefined) this.rows.set(nodeId, { ...row, heartbeatAt: this.clock.now() });
  }

  private put(row: NodeRow): void {
    this.writes++;
    this.rows.set(row.nodeId, row);
  }

  private check(): void {
    if (this.failWith !== null) throw this.failWith;
  }
}
