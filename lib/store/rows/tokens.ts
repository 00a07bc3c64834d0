/** leaf_token rows, as drizzle (…Stored) and the server drivers (Raw…) read them, and the insert. */
import type { StoredToken, TokenRow } from '../../auth/tokenStore';

/** A leaf_token row as either dialect reads it (times may arrive as decimal strings, tags as JSON text). */
export interface TokenStored {
  id: string;
  name: string;
  tokenHash: string;
  tags: string;
  createdAt: number | string;
  createdBy: string;
  revokedAt: number | string | null;
}

export function storedToken(r: TokenStored): StoredToken {
  return {
    id: r.id,
    name: r.name,
    tokenHash: r.tokenHash,
    tags: parseTags(r.tags),
    createdAt: Number(r.createdAt),
    createdBy: r.createdBy,
    revokedAt: r.revokedAt === null ? null : Number(r.revokedAt),
  };
}

/** The columns of a new row (field names of the drizzle schemas). */
export function tokenInsert(
  t: StoredToken,
): Omit<TokenStored, 'tags'> & { tags: string; createdAt: number; revokedAt: number | null } {
  return { ...t, tags: JSON.stringify(t.tags) };
}

function parseTags(text: string): string[] {
  try {
    const tags: unknown = JSON.parse(text);
    return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return []; // written by hand: a token that covers nothing, rather than failing the whole table
  }
}

/** The row without its hash. */
export function tokenRow({ tokenHash: _hash, ...row }: StoredToken): TokenRow {
  return row;
}

export interface RawTokenRow {
  id: string;
  name: string;
  token_hash: string;
  tags: string;
  created_at: string | number;
  created_by: string;
  revoked_at: string | number | null;
}

export function tokenFromRaw(r: RawTokenRow): StoredToken {
  return storedToken({
    id: r.id,
    name: r.name,
    tokenHash: r.token_hash,
    tags: r.tags,
    createdAt: r.created_at,
    createdBy: r.created_by,
    revokedAt: r.revoked_at,
  });
}
