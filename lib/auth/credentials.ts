import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Session cookie `<expiry>.<id>.<HMAC>`: stateless, signed with the admin token (rotating it revokes all). */
export const SESSION_COOKIE = 'leaf_session';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

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

type CredentialHeaders = { authorization?: string | null; cookie?: string | null };

/** `token:<hash>` for the Bearer token, `session:<id>` for a valid cookie, else null (a wrong Bearer is not rescued by a cookie). */
export function credentialOf(token: string, headers: CredentialHeaders, now: number): string | null {
  const presented = bearer(headers.authorization);
  if (presented !== null) return secretEquals(presented, token) ? tokenActor(token) : null;
  const session = readCookie(headers.cookie, SESSION_COOKIE);
  const sessionId = session === null ? null : sessionIdOf(token, session, now);
  return sessionId === null ? null : sessionActor(sessionId);
}

/** A request is the operator's when it carries the token as a Bearer header or a valid session cookie. */
export function isAuthorized(token: string, headers: CredentialHeaders, now: number): boolean {
  return credentialOf(token, headers, now) !== null;
}
