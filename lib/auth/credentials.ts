import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Session cookie `<expiry>.<id>.<HMAC>`, signed with the admin token (rotating it ends them all); the id names a
 * leaf_session row that must be live too (lib/auth/consoleSessions.ts).
 */
export const SESSION_COOKIE = 'leaf_session';
/** The absolute end of a session (ASVS 4.0 3.3.2, level 2: 12 hours), whatever its activity. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** The Set-Cookie of a new session: HttpOnly, SameSite=Strict, Secure when the client reached us over TLS. */
export function sessionCookie(value: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie that clears it (logout, sign out everywhere). */
export const CLEARED_SESSION_COOKIE = `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;

/** Equal-time comparison of secrets of any length (hashing first makes the lengths equal). */
export function secretEquals(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

function sign(token: string, expiresAt: number, sessionId: string): string {
  return createHmac('sha256', token).update(`leaf-session:${expiresAt}:${sessionId}`).digest('base64url');
}

const SESSION_ID = /^[A-Za-z0-9_-]{16}$/;

export function createSessionValue(
  token: string,
  now: number,
): { value: string; expiresAt: number; sessionId: string } {
  const expiresAt = now + SESSION_TTL_MS;
  const sessionId = randomBytes(12).toString('base64url');
  return { value: `${expiresAt}.${sessionId}.${sign(token, expiresAt, sessionId)}`, expiresAt, sessionId };
}

/** The session's id when the cookie value is genuine and unexpired, else null. */
export function sessionIdOf(token: string, value: string, now: number): string | null {
  const [expiry, sessionId, signature, ...rest] = value.split('.');
  if (rest.length > 0 || signature === undefined || sessionId === undefined || !SESSION_ID.test(sessionId)) return null;
  const expiresAt = Number(expiry);
  if (!/^\d+$/.test(expiry ?? '') || !Number.isSafeInteger(expiresAt) || expiresAt <= now) return null;
  return secretEquals(signature, sign(token, expiresAt, sessionId)) ? sessionId : null;
}

export function verifySessionValue(token: string, value: string, now: number): boolean {
  return sessionIdOf(token, value, now) !== null;
}

/** How the audit trail names a Bearer credential: never the token, only a short hash of it. */
export function tokenActor(token: string): string {
  return `token:${createHash('sha256').update(token).digest('hex').slice(0, 8)}`;
}

export function sessionActor(sessionId: string): string {
  return `session:${sessionId}`;
}

export function readCookie(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function bearer(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  return m ? m[1]!.trim() : null;
}
