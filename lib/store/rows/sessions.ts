/** leaf_session rows as either dialect reads them: times may arrive as decimal strings (pg bigint). */
import type { SessionRow } from '../../auth/sessionStore';
import { sql } from 'drizzle-orm';
import { TABLE, list, valuesOf } from '../server/query';

export interface RawSessionRow {
  id: string;
  token_tag: string;
  created_at: number | string;
  last_seen_at: number | string;
  expires_at: number | string;
  address: string;
  user_agent: string;
  ended_at: number | string | null;
}

export function sessionFromRaw(r: RawSessionRow): SessionRow {
  return {
    id: r.id,
    tokenTag: r.token_tag,
    createdAt: Number(r.created_at),
    lastSeenAt: Number(r.last_seen_at),
    expiresAt: Number(r.expires_at),
    address: r.address,
    userAgent: r.user_agent,
    endedAt: r.ended_at === null ? null : Number(r.ended_at),
  };
}

export function sessionToRaw(s: SessionRow): RawSessionRow {
  return {
    id: s.id,
    token_tag: s.tokenTag,
    created_at: s.createdAt,
    last_seen_at: s.lastSeenAt,
    expires_at: s.expiresAt,
    address: s.address,
    user_agent: s.userAgent,
    ended_at: s.endedAt,
  };
}

/** The statements, written once for every dialect, SQLite's too (values are parameters; names quoted per dialect). */
const T = TABLE.session;
export const sessionSql = {
  insert: (s: SessionRow) => sql`INSERT INTO ${T} ${valuesOf({ ...sessionToRaw(s) })}`,
  get: (id: string) => sql`SELECT * FROM ${T} WHERE id = ${id}`,
  touch: (id: string, at: number) =>
    sql`UPDATE ${T} SET last_seen_at = ${at} WHERE id = ${id} AND ended_at IS NULL AND last_seen_at < ${at}`,
  live: (tokenTag: string, now: number) =>
    sql`SELECT * FROM ${T} WHERE token_tag = ${tokenTag} AND ended_at IS NULL AND expires_at > ${now} ORDER BY created_at DESC, id`,
  end: (ids: string[], at: number) =>
    sql`UPDATE ${T} SET ended_at = ${at} WHERE ended_at IS NULL AND id IN ${list(ids)}`,
  prune: (before: number) =>
    sql`DELETE FROM ${T} WHERE (ended_at IS NOT NULL AND ended_at < ${before}) OR expires_at < ${before}`,
};
