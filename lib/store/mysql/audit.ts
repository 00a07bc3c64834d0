import { and, desc, eq, lt } from 'drizzle-orm';
import type { AuditQuery, AuditRecord, AuditStore } from '../../admin/auditStore';
import type { AuditAction, AuditStamp } from '../../audit';
import { type RawAuditRow, auditFromRaw } from '../serverRows';
import { auditInsert } from '../auditRows';
import { leafAudit } from '../schema/mysql';
import type { ServerExecutor } from '../serverExecutor';
import { db } from './sql';

/** leaf_audit on MySQL/MariaDB: appended on its own (logins) or by a change inside its transaction (sql.ts's insertAudit). */
export class MysqlAudit implements AuditStore {
  constructor(private readonly exec: ServerExecutor) {}

  async appendAudit(entry: AuditStamp & { action: AuditAction; bizTag?: string | null }): Promise<void> {
    // Not retried after an unknown outcome: the row would be written twice.
    await this.exec.write(
      db.insert(leafAudit).values(auditInsert(entry, entry.action, entry.bizTag ?? null, undefined, undefined)),
      false,
    );
  }

  async listAudit({ before, limit, bizTag }: AuditQuery): Promise<AuditRecord[]> {
    const where = and(
      bizTag === undefined ? undefined : eq(leafAudit.bizTag, bizTag),
      before === undefined ? undefined : lt(leafAudit.id, before),
    );
    const rows = await this.exec.read<RawAuditRow[]>(
      db.select().from(leafAudit).where(where).orderBy(desc(leafAudit.id)).limit(limit),
    );
    return rows.map(auditFromRaw);
  }
}
