import { sql } from 'drizzle-orm';
import type { NodeRegistration, NodeRow, NodeStore } from '../../fleet/nodeStore';
import type { ServerExecutor } from '../serverExecutor';
import { NODE_COLUMNS, type RawNodeRow, nodeFromRaw } from '../rows/nodes';
import type { ServerDialect } from './dialect';
import { TABLE, assignments } from './query';

/** The fleet registry on a server: every identity claim conditional; all but takeOverNode harmless twice. */
export class ServerNodes implements NodeStore {
  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {}

  private registration(reg: NodeRegistration) {
    return {
      node_id: reg.nodeId,
      instance_id: reg.instanceId,
      address: reg.address,
      version: reg.version,
      started_at: reg.startedAt,
      snapshot: reg.snapshot,
      heartbeat_at: this.dialect.nowMs,
      state: 'up',
    };
  }

  async registerNode(reg: NodeRegistration, goneMs: number): Promise<boolean> {
    const row = this.registration(reg);
    // Insert a new identity, else take the row only if it is ours, stopped or silent past goneMs: two conditional
    // statements (one upsert would judge later columns by already-updated ones on MySQL). A racer that loses gets 0.
    if ((await this.exec.write(this.dialect.insertIgnore(TABLE.node, row), true)).affected === 1) return true;
    return this.exec.changedOne(
      sql`UPDATE ${TABLE.node} SET ${assignments(row)} WHERE node_id = ${reg.nodeId}
          AND (instance_id = ${reg.instanceId} OR state = 'stopped' OR heartbeat_at < ${this.dialect.nowMs} - ${goneMs})`,
      true,
    );
  }

  takeOverNode(reg: NodeRegistration, seen: Pick<NodeRow, 'instanceId' | 'heartbeatAt'>): Promise<boolean> {
    // Run twice, the second finds our own row and says no: unknown outcomes are not retried (the caller re-reads).
    return this.exec.changedOne(
      sql`UPDATE ${TABLE.node} SET ${assignments(this.registration(reg))} WHERE node_id = ${reg.nodeId}
          AND instance_id = ${seen.instanceId} AND heartbeat_at = ${seen.heartbeatAt}`,
      false,
    );
  }

  beatNode(nodeId: string, instanceId: string, snapshot: string | null): Promise<boolean> {
    const set = { heartbeat_at: this.dialect.nowMs, state: 'up', ...(snapshot === null ? {} : { snapshot }) };
    return this.exec.changedOne(
      sql`UPDATE ${TABLE.node} SET ${assignments(set)} WHERE node_id = ${nodeId} AND instance_id = ${instanceId}`,
      true,
    );
  }

  async stopNode(nodeId: string, instanceId: string): Promise<void> {
    await this.exec.write(
      sql`UPDATE ${TABLE.node} SET state = 'stopped' WHERE node_id = ${nodeId} AND instance_id = ${instanceId}`,
      true,
    );
  }

  async getNode(nodeId: string): Promise<NodeRow | undefined> {
    const [row] = await this.exec.read<RawNodeRow>(sql`SELECT * FROM ${TABLE.node} WHERE node_id = ${nodeId}`);
    return row === undefined ? undefined : nodeFromRaw(row);
  }

  async listNodes(withSnapshots = true): Promise<{ dbNow: number; rows: NodeRow[] }> {
    // The clock comes with the rows (a LEFT JOIN from one row, so an empty registry still reads it).
    const columns = withSnapshots
      ? sql`n.*`
      : sql.raw(`${NODE_COLUMNS.map((c) => `n.${c}`).join(', ')}, '' AS snapshot`);
    const rows = await this.exec.read<Partial<RawNodeRow> & { db_now: string }>(
      sql`SELECT c.db_now, ${columns} FROM (SELECT ${this.dialect.nowMs} AS db_now) c
          LEFT JOIN ${TABLE.node} n ON TRUE ORDER BY n.node_id`,
    );
    return {
      dbNow: Number(rows[0]?.db_now),
      rows: rows.filter((r): r is RawNodeRow & { db_now: string } => r.node_id != null).map(nodeFromRaw),
    };
  }

  async pruneNodes(olderThanMs: number): Promise<number> {
    const deleted = await this.exec.write(
      sql`DELETE FROM ${TABLE.node} WHERE heartbeat_at < ${this.dialect.nowMs} - ${olderThanMs}`,
      true, // deleting what is already gone deletes nothing
    );
    return deleted.affected;
  }
}
