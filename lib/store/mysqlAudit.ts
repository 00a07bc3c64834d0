import { and, desc, eq, lt } from 'drizzle-orm';
import type { MySql2Database } from 'drizzle-orm/mysql2';
import { type AuditInsert, auditRecord } from './auditRows';
import { leafAudit } from './schema/mysql';
import type { AuditQuery, AuditRecord } from '../admin/auditStore';

/** A statement runner of MysqlStore (inside a transaction or on its own). */
type Run = <R>(text: string, params: unknown[]) => Promise<R>;

/** A leaf_audit row as mysql2 returns it: keyed by column name, BIGINTs as decimal strings. */
interface RawAuditRow {
  id: string;
  at: string;
  action: string;
  biz_tag: string | null;
  actor: string;
  address: string;
  node_id: string;
  before: string | null;
  after: string | null;
}

/** leaf_audit on MySQL/MariaDB; `db` only compiles (drizzle.mock), `run` executes. */
export async function insertAuditMysql(db: MySql2Database, run: Run, row: AuditInsert): Promise<void> {
  const insert = db.insert(leafAudit).values(row).toSQL();
  await run(insert.sql, insert.params);
}

export async function listAuditMysql(db: MySql2Database, run: Run, { before, limit, bizTag }: AuditQuery): Promise<AuditRecord[]> {
  const where = and(bizTag === undefined ? undefined : eq(leafAudit.bizTag, bizTag), before === undefined ? undefined : lt(leafAudit.id, before));
  const select = db.select().from(leafAudit).where(where).orderBy(desc(leafAudit.id)).limit(limit).toSQL();
  const rows = await run<RawAuditRow[]>(select.sql, select.params);
  return rows.map((r) => auditRecord({ ...r, bizTag: r.biz_tag, nodeId: r.node_id }));
}
