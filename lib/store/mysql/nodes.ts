import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { ResultSetHeader } from 'mysql2/promise';
import type { NodeRegistration, NodeRow, NodeStore } from '../../fleet/nodeStore';
import { leafNode } from '../schema/mysql';
import { type ServerExecutor, raw } from '../serverExecutor';
import { NODE_COLUMNS, type RawNodeRow, nodeFromRaw } from '../serverRows';
import { DB_NOW_MS, NOW_MS_SQL, db } from './sql';

/**
 * The fleet registry on MySQL/MariaDB/Galera. Every claim is conditional in the database,
 * and every write here is harmless to run twice (each is conditioned on our instance id), so all are retried after
 * an unknown outcome — on Galera a lost certification (1213) is retried and then finds the winner's row.
 */
export class MysqlNodes implements NodeStore {
  constructor(private readonly exec: ServerExecutor) {}

  async registerNode(reg: NodeRegistration, goneMs: number): Promise<boolean> {
    const row = { ...reg, heartbeatAt: DB_NOW_MS, state: 'up' };
    // Two conditional statements, each atomic under InnoDB's row lock (and Galera's certification): insert a
    // new identity, else take a row that is ours, stopped or silent past goneMs. A racer that loses either gets
    // 0 rows. (MySQL's ON DUPLICATE KEY UPDATE evaluates its assignments in order, each seeing the ones before, so
    // one conditional upsert would judge later columns by the already-updated ones.)
    const inserted = await this.exec.write<ResultSetHeader>(db.insert(leafNode).ignore().values(row), true);
    if (inserted.affectedRows === 1) return true;
    const taken = await this.exec.write<ResultSetHeader>(
      db
        .update(leafNode)
        .set(row)
        .where(
          and(
            eq(leafNode.nodeId, reg.nodeId),
            or(
              eq(leafNode.instanceId, reg.instanceId),
              eq(leafNode.state, 'stopped'),
              lt(leafNode.heartbeatAt, sql`${DB_NOW_MS} - ${goneMs}`),
            ),
          ),
        ),
      true,
    );
    return taken.affectedRows === 1;
  }

  async takeOverNode(reg: NodeRegistration, seen: Pick<NodeRow, 'instanceId' | 'heartbeatAt'>): Promise<boolean> {
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

  async beatNode(nodeId: string, instanceId: string, snapshot: string | null): Promise<boolean> {
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
    const rows = await this.exec.read<RawNodeRow[]>(raw('SELECT * FROM `leaf_node` WHERE node_id = ?', [nodeId]));
    return rows[0] === undefined ? undefined : nodeFromRaw(rows[0]);
  }

  async listNodes(withSnapshots = true): Promise<{ dbNow: number; rows: NodeRow[] }> {
    // The clock comes with the rows (a LEFT JOIN from one row, so an empty registry still reads it).
    const columns = withSnapshots ? 'n.*' : `${NODE_COLUMNS.map((c) => `n.${c}`).join(', ')}, '' AS snapshot`;
    const rows = await this.exec.read<Array<Partial<RawNodeRow> & { db_now: string }>>(
      raw(
        `SELECT c.db_now, ${columns} FROM (SELECT ${NOW_MS_SQL} AS db_now) c LEFT JOIN \`leaf_node\` n ON TRUE ORDER BY n.node_id`,
      ),
    );
    return {
      dbNow: Number(rows[0]?.db_now),
      rows: rows.filter((r): r is RawNodeRow & { db_now: string } => r.node_id != null).map(nodeFromRaw),
    };
  }

  async pruneNodes(olderThanMs: number): Promise<number> {
    const header = await this.exec.write<ResultSetHeader>(
      db.delete(leafNode).where(lt(leafNode.heartbeatAt, sql`${DB_NOW_MS} - ${olderThanMs}`)),
      true, // deleting what is already gone deletes nothing
    );
    return header.affectedRows;
  }
}
