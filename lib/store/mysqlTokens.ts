import { asc, eq } from 'drizzle-orm';
import type { MySql2Database } from 'drizzle-orm/mysql2';
import { auditInsert } from './auditRows';
import { insertAuditMysql } from './mysqlAudit';
import { leafToken } from './schema/mysql';
import { type TokenStored, storedToken, tokenInsert, tokenNotFound, tokenRow } from './tokenRows';
import type { AuditStamp } from '../audit';
import type { StoredToken, TokenRow } from '../auth/tokenStore';

/** A statement runner of MysqlStore (inside a transaction or on its own). */
type Run = <R>(text: string, params: unknown[]) => Promise<R>;

interface RawTokenRow {
  id: string;
  name: string;
  token_hash: string;
  tags: string;
  created_at: string | number;
  created_by: string;
  revoked_at: string | number | null;
}

function fromRaw(r: RawTokenRow): StoredToken {
  const row: TokenStored = { id: r.id, name: r.name, tokenHash: r.token_hash, tags: r.tags, createdAt: r.created_at, createdBy: r.created_by, revokedAt: r.revoked_at };
  return storedToken(row);
}

/** leaf_token on MySQL/MariaDB; `db` only compiles (drizzle.mock), `run` executes. */
export async function listTokensMysql(db: MySql2Database, run: Run): Promise<StoredToken[]> {
  const select = db.select().from(leafToken).orderBy(asc(leafToken.createdAt), asc(leafToken.id)).toSQL();
  return (await run<RawTokenRow[]>(select.sql, select.params)).map(fromRaw);
}

/** Inside a transaction: the row and its audit entry commit together. */
export async function createTokenMysql(db: MySql2Database, q: Run, token: StoredToken, audit: AuditStamp): Promise<TokenRow> {
  const insert = db.insert(leafToken).values(tokenInsert(token)).toSQL();
  await q(insert.sql, insert.params);
  const row = tokenRow(token);
  await insertAuditMysql(db, q, auditInsert(audit, 'token.create', null, undefined, row));
  return row;
}

export async function revokeTokenMysql(db: MySql2Database, q: Run, id: string, at: number, audit: AuditStamp): Promise<TokenRow> {
  const [found] = await q<RawTokenRow[]>('SELECT * FROM `leaf_token` WHERE id = ? FOR UPDATE', [id]);
  if (found === undefined) throw tokenNotFound(id);
  const before = tokenRow(fromRaw(found));
  if (before.revokedAt !== null) return before;
  const update = db.update(leafToken).set({ revokedAt: at }).where(eq(leafToken.id, id)).toSQL();
  await q(update.sql, update.params);
  const after = { ...before, revokedAt: at };
  await insertAuditMysql(db, q, auditInsert(audit, 'token.revoke', null, before, after));
  return after;
}
