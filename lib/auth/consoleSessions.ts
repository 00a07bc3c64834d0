import { createHash } from 'node:crypto';
import { createSessionValue, sessionIdOf } from './credentials';
import type { SessionRow, SessionStore } from './sessionStore';

/** A session ends after this long without a request (ASVS 4.0 3.3.2, level 2: 30 minutes of inactivity). */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** last_seen_at is written at most this often per session: one write a minute, not one per request. */
export const SESSION_TOUCH_MS = 60 * 1000;
/** Ended and expired rows are kept this long for the console's list and the audit, then deleted at a login. */
const SESSION_KEEP_MS = 7 * 24 * 60 * 60 * 1000;
const MAX_USER_AGENT = 256;

/** The admin token's short hash: which token a session row belongs to, without keeping the token. */
export function tokenTag(token: string): string {
  return createHash('sha256').update(`leaf-session-tag:${token}`).digest('hex').slice(0, 16);
}

/** What the console shows of a session: never the cookie. */
export interface SessionView {
  id: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  idleExpiresAt: number;
  address: string;
  userAgent: string;
}

/**
 * Console sessions kept in the database: the cookie is signed with the admin token (a rotated token ends every
 * session) and names a row every node reads, so a logout or "sign out everywhere" holds at the next request on
 * any node.
 */
export class ConsoleSessions {
  private readonly tag: string;

  constructor(
    private readonly store: SessionStore,
    private readonly token: string,
  ) {
    this.tag = tokenTag(token);
  }

  /** A new session's row, then its cookie value; old rows are pruned on the way. */
  async begin(address: string, userAgent: string, now: number) {
    const session = createSessionValue(this.token, now);
    await this.store.insertSession({
      id: session.sessionId,
      tokenTag: this.tag,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: session.expiresAt,
      address: address.slice(0, 64),
      userAgent: userAgent.slice(0, MAX_USER_AGENT),
      endedAt: null,
    });
    await this.store.pruneSessions(now - SESSION_KEEP_MS);
    return session;
  }

  /** The session id when the cookie is genuine and its row live at `now` (its last-seen time moved on), else null. */
  async verify(cookieValue: string, now: number): Promise<string | null> {
    const id = sessionIdOf(this.token, cookieValue, now);
    if (id === null) return null;
    const row = await this.store.getSession(id);
    if (row === null || !this.isLive(row, now)) return null;
    if (now - row.lastSeenAt >= SESSION_TOUCH_MS) await this.store.touchSession(id, now);
    return id;
  }

  async live(now: number): Promise<SessionView[]> {
    return (await this.store.liveSessions(this.tag, now)).filter((r) => this.isLive(r, now)).map(view);
  }

  end(ids: string[], now: number): Promise<number> {
    return this.store.endSessions(ids, now);
  }

  /** Ends every live session of this token; the ids it ended. */
  async endAll(now: number): Promise<string[]> {
    const ids = (await this.store.liveSessions(this.tag, now)).map((r) => r.id);
    await this.store.endSessions(ids, now);
    return ids;
  }

  private isLive(row: SessionRow, now: number): boolean {
    return (
      row.tokenTag === this.tag && row.endedAt === null && now < row.expiresAt && now < row.lastSeenAt + SESSION_IDLE_MS
    );
  }
}

function view(r: SessionRow): SessionView {
  const { id, createdAt, lastSeenAt, expiresAt, address, userAgent } = r;
  return { id, createdAt, lastSeenAt, expiresAt, idleExpiresAt: lastSeenAt + SESSION_IDLE_MS, address, userAgent };
}
