import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { NodeRegistration, NodeRow, NodeStore } from '../../fleet/nodeStore';
import { leafNode } from '../schema/postgres';
import { type ServerExecutor, raw } from '../serverExecutor';
import type { PgResult } from './executor';
import { NODE_COLUMNS, type RawNodeRow, nodeFromRaw } from '../serverRows';
import { DB_NOW_MS, NOW_MS_SQL, db } from './sql';

/**
 * The fleet registry on PostgreSQL. Every claim of an identity is one conditional statement, atomic under the row
 * lock; every write here is harmless to run twice (each is conditioned on our instance id) but takeOverNode, so
 * those are retried after an unknown outcome. Times on the database's clock.
 */
export class PostgresNodes implements NodeStore {
  constructor(private readonly exec: ServerExecutor) {}

  registerNode(reg: NodeRegistration, goneMs: number): Promise<boolean> {
    const row = { ...reg, heartbeatAt: DB_NOW_MS, state: 'up' };
    // One upsert: insert a new identity, else take the row only if it is ours, stopped or silent past goneMs (its
    // WHERE reads the existing row, locked). A racer that loses gets 0 rows.
    return this.exec.changedOne(
      db
        .insert(leafNode)
        .values(row)
        .onConflictDoUpdate({
          target: leafNode.nodeId,
          set: row,
          setWhere: or(
            eq(leafNode.instanceId, reg.instanceId),
            eq(leafNode.state, 'stopped'),
            lt(leafNode.heartbeatAt, sql`${DB_NOW_MS} - ${goneMs}`),
          ),
        }),
      true,
    );
  }

  takeOverNode(reg: NodeRegistration, seen: Pick<NodeRow, 'instanceId' | 'heartbeatAt'>): Promise<boolean> {
    // Run twice, the second finds our own row and says no: unknown outcomes are not retried (the caller re-reads).
    return this.exec.changedOne(
      db
        .update(leafNode)
        .set({ ...reg, heartbeatAt: DB_NOW_MS, state: 'up' })
        .where(
          and(
            eq(leafNode.nodeId, reg.nodeId),
            eq(leafNode.instanceId, seen.instanceId),
            eq(leafNode.heartbeatAt, seen.heartbeatAt),
          ),
        ),
      false,
    );
  }

  beatNode(nodeId: string, instanceId: string, snapshot: string | null): Promise<boolean> {
    return this.exec.changedOne(
      db
        .update(leafNode)
        .set({ heartbeatAt: DB_NOW_MS, state: 'up', ...(snapshot === null ? {} : { snapshot }) })
        .where(and(eq(leafNode.nodeId, nodeId), eq(leafNode.instanceId, instanceId))),
      true,
    );
  }

  async stopNode(nodeId: string, instanceId: string): Promise<void> {
    await this.exec.write(
      db
        .update(leafNode)
        .set({ state: 'stopped' })
        .where(and(eq(leafNode.nodeId, nodeId), eq(leafNode.instanceId, instanceId))),
      true,
    );
  }

  async getNode(nodeId: string): Promise<NodeRow | undefined> {
    const rows = await this.exec.read<RawNodeRow[]>(raw('SELECT * FROM leaf_node WHERE node_id = $1', [nodeId]));
    return rows[0] === undefined ? undefined : nodeFromRaw(rows[0]);
  }

  async listNodes(withSnapshots = true): Promise<{ dbNow: number; rows: NodeRow[] }> {
    // The clock comes with the rows (a LEFT JOIN from one row, so an empty registry still reads it).
    const columns = withSnapshots ? 'n.*' : `${NODE_COLUMNS.map((c) => `n.${c}`).join(', ')}, '' AS snapshot`;
    const rows = await this.exec.read<Array<Partial<RawNodeRow> & { db_now: string }>>(
      raw(
        `SELECT c.db_now, ${columns} FROM (SELECT ${NOW_MS_SQL} AS db_now) c LEFT JOIN leaf_node n ON TRUE ORDER BY n.node_id`,
      ),
    );
    return {
      dbNow: Number(rows[0]?.db_now),
      rows: rows.filter((r): r is RawNodeRow & { db_now: string } => r.node_id != null).map(nodeFromRaw),
    };
  }

  async pruneNodes(olderThanMs: number): Promise<number> {
    const deleted = await this.exec.write<PgResult>(
      db.delete(leafNode).where(lt(leafNode.heartbeatAt, sql`${DB_NOW_MS} - ${olderThanMs}`)),
      true,
    );
    return deleted.rowCount;
  }
}
