/** The audit trail's vocabulary (leaf_audit, append-only): who changed what, and the rows it keeps. */

/** What an audit row records, besides the rows themselves. */
export const AUDIT_ACTIONS = [
  'tag.semantics',
  'fleet.semantics',
  'tag.create',
  'tag.edit',
  'tag.raise',
  'tag.ordering',
  'tag.encoding',
  'tag.delete',
  'auth.login',
  'auth.login_failed',
  'auth.logout',
  'auth.session_end',
  'auth.sign_out_everywhere',
  'token.create',
  'token.revoke',
  'format.create',
  'format.edit',
  'format.delete',
  'participant.forget',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who changed something, from where, through which node, when (ms since the Unix epoch). */
export interface AuditStamp {
  /** `token:<first 8 hex of sha256(token)>`, `session:<id>`, or `anonymous` (a failed login). */
  actor: string;
  /** The client's socket address as server.ts saw it. */
  address: string;
  nodeId: string;
  at: number;
}

/** A tag row as the audit trail keeps it: the admin API's row, max_id as a decimal string. */
export interface AuditTagRow {
  bizTag: string;
  maxId: string;
  step: number;
  description: string | null;
  updateTime: string;
}
