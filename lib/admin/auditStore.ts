import type { AuditAction, AuditSemantics, AuditStamp, AuditTagRow } from '../audit';
import type { TokenRow } from '../auth/tokenStore';
import type { FormatRow } from '../format/formatStore';

/** A row as an audit entry keeps it: a tag's (with its semantics when a switch carries them), a switch's, a token's (no hash) or a format's. */
export type AuditEntryRow = AuditTagRow | AuditSemantics | (AuditTagRow & AuditSemantics) | TokenRow | FormatRow;

export interface AuditRecord extends AuditStamp {
  id: number;
  action: AuditAction;
  bizTag: string | null;
  before: AuditEntryRow | null;
  after: AuditEntryRow | null;
}

export interface AuditQuery {
  /** Only rows with an id below this one (keyset pagination, newest first). */
  before?: number;
  limit: number;
  bizTag?: string;
}

/**
 * leaf_audit as the admin API reads it and logins append to it; append-only: there is no update or delete. Changes
 * write their own row inside their own transaction (the `audit` argument of the tag, format, token and semantics
 * writes); logins and logouts append one on their own.
 */
export interface AuditStore {
  appendAudit(entry: AuditStamp & { action: AuditAction; bizTag?: string | null }): Promise<void>;
  /** Newest first (by id). */
  listAudit(query: AuditQuery): Promise<AuditRecord[]>;
}
