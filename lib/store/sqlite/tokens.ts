import { asc, eq } from 'drizzle-orm';
import type { AuditStamp } from '../../audit';
import type { StoredToken, TokenRow, TokenStore } from '../../auth/tokenStore';
import { auditInsert } from '../rows/audit';
import { leafToken } from '../schema/sqlite';
import { tokenNotFound } from '../../errors';
import { storedToken, tokenInsert, tokenRow } from '../rows/tokens';
import type { SqliteExecutor } from './executor';
import { insertAudit } from './sql';

/** leaf_token on SQLite: creating and revoking are immediate transactions with their audit row. */
export class SqliteTokens implements TokenStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async listTokens(): Promise<StoredToken[]> {
    return this.exec.read((db) =>
      db.select().from(leafToken).orderBy(asc(leafToken.createdAt), asc(leafToken.id)).all().map(storedToken),
    );
  }

  async createToken(token: StoredToken, audit: AuditStamp): Promise<TokenRow> {
    return this.exec.transaction((db) => {
      db.insert(leafToken).values(tokenInsert(token)).run();
      const row = tokenRow(token);
      insertAudit(db, auditInsert(audit, 'token.create', null, undefined, row));
      return row;
    });
  }

  async revokeToken(id: string, at: number, audit: AuditStamp): Promise<TokenRow> {
    return this.exec.transaction((db) => {
      const found = db.select().from(leafToken).where(eq(leafToken.id, id)).get();
      if (found === undefined) throw tokenNotFound(id);
      const before = tokenRow(storedToken(found));
      if (before.revokedAt !== null) return before;
      db.update(leafToken).set({ revokedAt: at }).where(eq(leafToken.id, id)).run();
      const after = { ...before, revokedAt: at };
      insertAudit(db, auditInsert(audit, 'token.revoke', null, before, after));
      return after;
    });
  }
}
