/** A console session as leaf_session keeps it (times in ms since the Unix epoch). */
export interface SessionRow {
  id: string;
  /** The admin token's short hash when the session began: a rotated token's sessions are neither valid nor listed. */
  tokenTag: string;
  createdAt: number;
  lastSeenAt: number;
  /** The absolute end, whatever the activity. */
  expiresAt: number;
  address: string;
  userAgent: string;
  endedAt: number | null;
}

/** leaf_session: the port lib/auth/sessions.ts uses; every node reads the same rows. */
export interface SessionStore {
  insertSession(row: SessionRow): Promise<void>;
  getSession(id: string): Promise<SessionRow | null>;
  /** Moves last_seen_at forward (never back) on a session that has not ended. */
  touchSession(id: string, at: number): Promise<void>;
  /** Sessions of this token not ended and not past `expiresAt` at `now`, newest first. */
  liveSessions(tokenTag: string, now: number): Promise<SessionRow[]>;
  /** Ends these sessions (those not ended yet); how many it ended. */
  endSessions(ids: string[], at: number): Promise<number>;
  /** Deletes rows that ended or expired before `before` (kept a while for the console's list and the audit). */
  pruneSessions(before: number): Promise<number>;
}
