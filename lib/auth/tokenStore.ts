import type { AuditStamp } from '../audit';

/** A leaf_token row without its hash: what the admin API and the audit trail show. */
export interface TokenRow {
  id: string;
  name: string;
  tags: string[];
  /** ms since the Unix epoch. */
  createdAt: number;
  createdBy: string;
  revokedAt: number | null;
}

/** A token row with its SHA-256 (hex): what the ID routes' table is built from. */
export interface StoredToken extends TokenRow {
  tokenHash: string;
}

/** leaf_token (the refresher's and the admin API's port); creates and revokes write their audit row with them. */
export interface TokenStore {
  /** Every row, revoked ones included, oldest first. */
  listTokens(): Promise<StoredToken[]>;
  createToken(token: StoredToken, audit: AuditStamp): Promise<TokenRow>;
  /** Sets revoked_at (once: a revoked token stays as it was). `token_not_found` when missing. */
  revokeToken(id: string, at: number, audit: AuditStamp): Promise<TokenRow>;
}
