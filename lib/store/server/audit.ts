import { sql } from 'drizzle-orm';
import type { AuditQuery, AuditRecord, AuditStore } from '../../admin/auditStore';
import { type AuditInsert, type RawAuditRow, auditFromRaw, auditInsert } from '../rows/audit';
import type { ServerExecutor, Tx } from '../serverExecutor';
import { TABLE, valuesOf } from './query';

/** The INSERT of one leaf_audit row. */
function insert(row: AuditInsert) {
  return sql`INSERT INTO ${TABLE.audit} ${valuesOf({
    at: row.at,
    action: row.action,
    biz_tag: row.bizTag,
    actor: row.actor,
    address: row.address,
    node_id: row.nodeId,
    before: row.before,
    after: row.after,
  })}`;
}

/** A change's audit row, written in the change's own transaction (a change without its audit row cannot commit). */
export async function insertAudit(tx: Tx, row: AuditInsert): Promise<void> {
  await tx(insert(row));
}

/** leaf_audit on a database server: appended on its own (logins) or by a change inside its transaction. */
export class ServerAudit implements AuditStore {
  constructor(private readonly exec: ServerExecutor) {}

  async appendAudit(entry: Parameters<AuditStore['appendAudit']>[0]): Promise<void> {
    // Not retried after an unknown outcome: the row would be written twice.
    await this.exec.write(
      insert(auditInsert(entry, entry.action, entry.bizTag ?? null, entry.before, undefined)),
      false,
    );
  }

  async listAudit({ before, limit, bizTag }: AuditQuery): Promise<AuditRecord[]> {
    const conditions = [
      ...(bizTag === undefined ? [] : [sql`biz_tag = ${bizTag}`]),
      ...(before === undefined ? [] : [sql`id < ${before}`]),
    ];
    const where = conditions.length === 0 ? sql`` : sql`WHERE ${sql.join(conditions, sql` AND `)}`;
    const rows = await this.exec.read<RawAuditRow>(
      sql`SELECT * FROM ${TABLE.audit} ${where} ORDER BY id DESC LIMIT ${limit}`,
    );
    return rows.map(auditFromRaw);
  }
}
