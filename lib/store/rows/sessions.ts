/** leaf_session rows as either dialect reads them: times may arrive as decimal strings (pg bigint). */
import type { SessionRow } from '../../auth/sessionStore';
import { sql } from 'drizzle-orm';

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

/** The statements, written once for every dialect (values are parameters; names quoted per dialect). */
const T = sql.identifier('leaf_session');
export const sessionSql = {
  insert: (s: SessionRow) => {
    const raw = sessionToRaw(s);
    const names = Object.keys(raw).map((c) => sql.identifier(c));
    return sql`INSERT INTO ${T} (${sql.join(names, sql`, `)}) VALUES (${sql.join(
      Object.values(raw).map((v) => sql`${v}`),
      sql`, `,
    )})`;
  },
  get: (id: string) => sql`SELECT * FROM ${T} WHERE id = ${id}`,
  touch: (id: string, at: number) =>
    sql`UPDATE ${T} SET last_seen_at = ${at} WHERE id = ${id} AND ended_at IS NULL AND last_seen_at < ${at}`,
  live: (tokenTag: string, now: number) =>
    sql`SELECT * FROM ${T} WHERE token_tag = ${tokenTag} AND ended_at IS NULL AND expires_at > ${now} ORDER BY created_at DESC, id`,
  end: (ids: string[], at: number) =>
    sql`UPDATE ${T} SET ended_at = ${at} WHERE ended_at IS NULL AND id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`,
  prune: (before: number) =>
    sql`DELETE FROM ${T} WHERE (ended_at IS NOT NULL AND ended_at < ${before}) OR expires_at < ${before}`,
};
