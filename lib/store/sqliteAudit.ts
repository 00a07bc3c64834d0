import { and, desc, eq, lt } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { type AuditInsert, auditRecord } from './auditRows';
import { leafAudit } from './schema/sqlite';
import type { AuditQuery, AuditRecord } from '../admin/auditStore';

/** leaf_audit on SQLite. Synchronous, so SqliteStore can call it inside its own transactions. */
export function insertAuditSqlite(db: BetterSQLite3Database, row: AuditInsert): void {
  db.insert(leafAudit).values(row).run();
}

export function listAuditSqlite(db: BetterSQLite3Database, { before, limit, bizTag }: AuditQuery): AuditRecord[] {
  const where = and(bizTag === undefined ? undefined : eq(leafAudit.bizTag, bizTag), before === undefined ? undefined : lt(leafAudit.id, before));
  return db.select().from(leafAudit).where(where).orderBy(desc(leafAudit.id)).limit(limit).all().map(auditRecord);
}
