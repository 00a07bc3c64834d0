import { asc, eq } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { auditInsert } from './auditRows';
import { leafToken } from './schema/sqlite';
import { insertAuditSqlite } from './sqliteAudit';
import { storedToken, tokenInsert, tokenNotFound, tokenRow } from './tokenRows';
import type { AuditStamp } from '../audit';
import type { StoredToken, TokenRow } from '../auth/tokenStore';

/** leaf_token on SQLite. Synchronous statements; SqliteStore runs the writes in immediate transactions. */
export function listTokensSqlite(db: BetterSQLite3Database): StoredToken[] {
  return db.select().from(leafToken).orderBy(asc(leafToken.createdAt), asc(leafToken.id)).all().map(storedToken);
}

export function createTokenSqlite(db: BetterSQLite3Database, token: StoredToken, audit: AuditStamp): TokenRow {
  db.insert(leafToken).values(tokenInsert(token)).run();
  const row = tokenRow(token);
  insertAuditSqlite(db, auditInsert(audit, 'token.create', null, undefined, row));
  return row;
}

export function revokeTokenSqlite(db: BetterSQLite3Database, id: string, at: number, audit: AuditStamp): TokenRow {
  const found = db.select().from(leafToken).where(eq(leafToken.id, id)).get();
  if (found === undefined) throw tokenNotFound(id);
  const before = tokenRow(storedToken(found));
  if (before.revokedAt !== null) return before;
  db.update(leafToken).set({ revokedAt: at }).where(eq(leafToken.id, id)).run();
  const after = { ...before, revokedAt: at };
  insertAuditSqlite(db, auditInsert(audit, 'token.revoke', null, before, after));
  return after;
}
