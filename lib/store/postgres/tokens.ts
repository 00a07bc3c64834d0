import { asc, eq } from 'drizzle-orm';
import type { AuditStamp } from '../../audit';
import type { StoredToken, TokenRow, TokenStore } from '../../auth/tokenStore';
import { auditInsert } from '../auditRows';
import { leafToken } from '../schema/postgres';
import { type RawTokenRow, tokenFromRaw } from '../serverRows';
import { tokenInsert, tokenNotFound, tokenRow } from '../tokenRows';
import { type ServerExecutor, raw } from '../serverExecutor';
import type { PgResult } from './executor';
import { db, insertAudit } from './sql';

/** leaf_token on PostgreSQL: creating and revoking are transactions with their audit row. */
export class PostgresTokens implements TokenStore {
  constructor(private readonly exec: ServerExecutor) {}

  async listTokens(): Promise<StoredToken[]> {
    return (
      await this.exec.read<RawTokenRow[]>(
        db.select().from(leafToken).orderBy(asc(leafToken.createdAt), asc(leafToken.id)),
      )
    ).map(tokenFromRaw);
  }

  createToken(token: StoredToken, audit: AuditStamp): Promise<TokenRow> {
    return this.exec.transaction(async (tx) => {
      await tx(db.insert(leafToken).values(tokenInsert(token)));
      const row = tokenRow(token);
      await insertAudit(tx, auditInsert(audit, 'token.create', null, undefined, row));
      return row;
    });
  }

  revokeToken(id: string, at: number, audit: AuditStamp): Promise<TokenRow> {
    return this.exec.transaction(async (tx) => {
      const [found] = (await tx<PgResult<RawTokenRow>>(raw('SELECT * FROM leaf_token WHERE id = $1 FOR UPDATE', [id])))
        .rows;
      if (found === undefined) throw tokenNotFound(id);
      const before = tokenRow(tokenFromRaw(found));
      if (before.revokedAt !== null) return before;
      await tx(db.update(leafToken).set({ revokedAt: at }).where(eq(leafToken.id, id)));
      const after = { ...before, revokedAt: at };
      await insertAudit(tx, auditInsert(audit, 'token.revoke', null, before, after));
      return after;
    });
  }
}
