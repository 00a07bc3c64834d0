import { sql } from 'drizzle-orm';
import type { AuditStamp } from '../../audit';
import type { StoredToken, TokenRow, TokenStore } from '../../auth/tokenStore';
import { auditInsert } from '../rows/audit';
import type { ServerExecutor } from '../serverExecutor';
import { tokenNotFound } from '../../errors';
import { type RawTokenRow, tokenFromRaw, tokenRow } from '../rows/tokens';
import { insertAudit } from './audit';
import { TABLE, valuesOf } from './query';

/** leaf_token on a database server: creating and revoking are transactions with their audit row. */
export class ServerTokens implements TokenStore {
  constructor(private readonly exec: ServerExecutor) {}

  async listTokens(): Promise<StoredToken[]> {
    const rows = await this.exec.read<RawTokenRow>(sql`SELECT * FROM ${TABLE.token} ORDER BY created_at, id`);
    return rows.map(tokenFromRaw);
  }

  createToken(token: StoredToken, audit: AuditStamp): Promise<TokenRow> {
    return this.exec.transaction(async (tx) => {
      const row = {
        id: token.id,
        name: token.name,
        token_hash: token.tokenHash,
        tags: JSON.stringify(token.tags),
        created_at: token.createdAt,
        created_by: token.createdBy,
        revoked_at: token.revokedAt,
      };
      await tx(sql`INSERT INTO ${TABLE.token} ${valuesOf(row)}`);
      const created = tokenRow(token);
      await insertAudit(tx, auditInsert(audit, 'token.create', null, undefined, created));
      return created;
    });
  }

  revokeToken(id: string, at: number, audit: AuditStamp): Promise<TokenRow> {
    return this.exec.transaction(async (tx) => {
      const { rows } = await tx<RawTokenRow>(sql`SELECT * FROM ${TABLE.token} WHERE id = ${id} FOR UPDATE`);
      if (rows[0] === undefined) throw tokenNotFound(id);
      const before = tokenRow(tokenFromRaw(rows[0]));
      if (before.revokedAt !== null) return before;
      await tx(sql`UPDATE ${TABLE.token} SET revoked_at = ${at} WHERE id = ${id}`);
      const after = { ...before, revokedAt: at };
      await insertAudit(tx, auditInsert(audit, 'token.revoke', null, before, after));
      return after;
    });
  }
}
