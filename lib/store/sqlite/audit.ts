import { and, desc, eq, lt } from 'drizzle-orm';
import type { AuditQuery, AuditRecord, AuditStore } from '../../admin/auditStore';
import type { AuditAction, AuditStamp } from '../../audit';
import { type AuditInsert, auditInsert, auditRecord } from '../auditRows';
import { leafAudit } from '../schema/sqlite';
import type { SqliteDb, SqliteExecutor } from './executor';

/** leaf_audit on SQLite: appended on its own (logins) or by a change inside its transaction (insertAudit). */
export class SqliteAudit implements AuditStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async appendAudit(entry: AuditStamp & { action: AuditAction; bizTag?: string | null }): Promise<void> {
    this.exec.write((db) => insertAudit(db, auditInsert(entry, entry.action, entry.bizTag ?? null, undefined, undefined)));
  }

  async listAudit({ before, limit, bizTag }: AuditQuery): Promise<AuditRecord[]> {
    const where = and(bizTag === undefined ? undefined : eq(leafAudit.bizTag, bizTag), before === undefined ? undefined : lt(leafAudit.id, before));
    return this.exec.read((db) => db.select().from(leafAudit).where(where).orderBy(desc(leafAudit.id)).limit(limit).all().map(auditRecord));
  }
}

/** A change's audit row, written in the change's own transaction. */
export function insertAudit(db: SqliteDb, row: AuditInsert): void {
  db.insert(leafAudit).values(row).run();
}
