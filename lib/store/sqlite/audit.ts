import { and, desc, eq, lt } from 'drizzle-orm';
import type { AuditQuery, AuditRecord, AuditStore } from '../../admin/auditStore';
import { auditInsert, auditRecord } from '../rows/audit';
import { leafAudit } from '../schema/sqlite';
import type { SqliteExecutor } from './executor';
import { insertAudit } from './sql';

/** leaf_audit on SQLite: appended on its own (logins) or by a change inside its transaction (sql.ts's insertAudit). */
export class SqliteAudit implements AuditStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async appendAudit(entry: Parameters<AuditStore['appendAudit']>[0]): Promise<void> {
    this.exec.write((db) =>
      insertAudit(db, auditInsert(entry, entry.action, entry.bizTag ?? null, entry.before, undefined)),
    );
  }

  async listAudit({ before, limit, bizTag }: AuditQuery): Promise<AuditRecord[]> {
    const where = and(
      bizTag === undefined ? undefined : eq(leafAudit.bizTag, bizTag),
      before === undefined ? undefined : lt(leafAudit.id, before),
    );
    return this.exec.read((db) =>
      db.select().from(leafAudit).where(where).orderBy(desc(leafAudit.id)).limit(limit).all().map(auditRecord),
    );
  }
}
