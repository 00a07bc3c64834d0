import { and, asc, eq, getTableColumns, lt, or, sql } from 'drizzle-orm';
import type { NodeRegistration, NodeRow, NodeStore } from '../../fleet/nodeStore';
import { leafNode } from '../schema/sqlite';
import type { SqliteExecutor } from './executor';
import { DB_NOW_MS } from './sql';

/** The fleet registry on SQLite. Each claim is one statement, atomic under SQLite's write lock. */
export class SqliteNodes implements NodeStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async registerNode(reg: NodeRegistration, goneMs: number): Promise<boolean> {
    const row = { ...reg, heartbeatAt: DB_NOW_MS, state: 'up' };
    return this.exec.changedOne((db) =>
      db
        .insert(leafNode)
        .values(row)
        .onConflictDoUpdate({
          target: leafNode.nodeId,
          set: row,
          // Ours (a retried registration), said goodbye, or silent for longer than a live node can be.
          setWhere: or(
            eq(leafNode.instanceId, reg.instanceId),
            eq(leafNode.state, 'stopped'),
            lt(leafNode.heartbeatAt, sql`${DB_NOW_MS} - ${goneMs}`),
          ),
        })
        .run(),
    );
  }

  async takeOverNode(reg: NodeRegistration, seen: Pick<NodeRow, 'instanceId' | 'heartbeatAt'>): Promise<boolean> {
    return this.exec.changedOne((db) =>
      db
        .update(leafNode)
        .set({ ...reg, heartbeatAt: DB_NOW_MS, state: 'up' })
        .where(
          and(
            eq(leafNode.nodeId, reg.nodeId),
            eq(leafNode.instanceId, seen.instanceId),
            eq(leafNode.heartbeatAt, seen.heartbeatAt),
          ),
        )
        .run(),
    );
  }

  async beatNode(nodeId: string, instanceId: string, snapshot: string | null): Promise<boolean> {
    return this.exec.changedOne((db) =>
      db
        .update(leafNode)
        .set({ heartbeatAt: DB_NOW_MS, state: 'up', ...(snapshot === null ? {} : { snapshot }) })
        .where(and(eq(leafNode.nodeId, nodeId), eq(leafNode.instanceId, instanceId)))
        .run(),
    );
  }

  async stopNode(nodeId: string, instanceId: string): Promise<void> {
    this.exec.write((db) =>
      db
        .update(leafNode)
        .set({ state: 'stopped' })
        .where(and(eq(leafNode.nodeId, nodeId), eq(leafNode.instanceId, instanceId)))
        .run(),
    );
  }

  async getNode(nodeId: string): Promise<NodeRow | undefined> {
    return this.exec.read((db) => db.select().from(leafNode).where(eq(leafNode.nodeId, nodeId)).get());
  }

  async listNodes(withSnapshots = true): Promise<{ dbNow: number; rows: NodeRow[] }> {
    const { snapshot, ...columns } = getTableColumns(leafNode);
    return this.exec.read((db) => {
      const rows = db
        .select({
          row: { ...columns, snapshot: withSnapshots ? snapshot : sql<string>`''` },
          dbNow: sql<number>`${DB_NOW_MS}`,
        })
        .from(leafNode)
        .orderBy(asc(leafNode.nodeId))
        .all();
      const dbNow = rows[0]?.dbNow ?? db.get<{ n: number }>(sql`SELECT ${DB_NOW_MS} AS n`).n;
      return { dbNow, rows: rows.map((r) => r.row) };
    });
  }

  async pruneNodes(olderThanMs: number): Promise<number> {
    return this.exec.write(
      (db) =>
        db
          .delete(leafNode)
          .where(lt(leafNode.heartbeatAt, sql`${DB_NOW_MS} - ${olderThanMs}`))
          .run().changes,
    );
  }
}
