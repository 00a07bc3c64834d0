import type { AuditAction, AuditStamp, AuditTagRow } from '../audit';
import type { Semantics } from '../segment/semantics';
import type { TokenRow } from '../auth/tokenStore';
import type { FormatRow } from '../format/formatStore';

/** A row as an audit entry keeps it: a tag's (with its semantics when a switch carries them), a switch's, a token's (no hash) or a format's. */
/** A semantics switch as the audit trail keeps it (`tag.semantics` with the tag row beside it, `fleet.semantics` alone). */
export interface AuditSemantics {
  /** Effective semantics. */
  semantics: Semantics;
  /** `after` only: leaf_alloc rows whose max_id grew by one. */
  bumped?: number;
}

/** A tag.ordering entry: the ordering before and after (lib/ordered). */
export interface AuditOrdering {
  ordering: 'strict' | 'none';
}

/** A tag.encoding entry: an opaque tag's encoding and key fingerprint, written with its creation (lib/opaque). */
export interface AuditEncoding {
  encoding: 'opaque' | 'opaque-js-safe';
  keyId: string;
}

/** Sessions an operator ended (auth.session_end, auth.sign_out_everywhere): their ids, never a cookie. */
export interface AuditSessions {
  sessions: string[];
}

export type AuditEntryRow =
  | AuditTagRow
  | AuditSemantics
  | (AuditTagRow & AuditSemantics)
  | TokenRow
  | FormatRow
  | AuditOrdering
  | AuditSessions
  | AuditEncoding;

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

/** leaf_audit, append-only; changes write their row in their own transaction, logins on their own. */
export interface AuditStore {
  /** An entry of its own (logins, sessions); `before`: what it ended. */
  appendAudit(
    entry: AuditStamp & { action: AuditAction; bizTag?: string | null; before?: AuditSessions },
  ): Promise<void>;
  /** Newest first (by id). */
  listAudit(query: AuditQuery): Promise<AuditRecord[]>;
}
