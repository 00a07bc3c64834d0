import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Session cookie: `<expiry ms>.<HMAC(token, expiry)>`. Stateless, so every node of a cluster accepts it. */
export const SESSION_COOKIE = 'leaf_session';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** Equal-time comparison of secrets of any length (hashing first makes the lengths equal). */
export function secretEquals(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

function sign(token: string, expiresAt: number): string {
  return createHmac('sha256', token).update(`leaf-session:${expiresAt}`).digest('base64url');
}

export function createSessionValue(token: string, now: number): { value: string; expiresAt: number } {
  const expiresAt = now + SESSION_TTL_MS;
  return { value: `${expiresAt}.${sign(token, expiresAt)}`, expiresAt };
}

export function verifySessionValue(token: string, value: string, now: number): boolean {
  const dot = value.indexOf('.');
  if (dot <= 0) return false;
  const expiresAt = Number(value.slice(0, dot));
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= now) return false;
  return secretEquals(value.slice(dot + 1), sign(token, expiresAt));
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

/** A request is the operator's when it carries the token as a Bearer header or a valid session cookie. */
export function isAuthorized(token: string, headers: { authorization?: string | null; cookie?: string | null }, now: number): boolean {
  const presented = bearer(headers.authorization);
  if (presented !== null) return secretEquals(presented, token);
  const session = readCookie(headers.cookie, SESSION_COOKIE);
  return session !== null && verifySessionValue(token, session, now);
}
