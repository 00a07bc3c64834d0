import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LeafError } from '../errors';
import type { StoredToken } from './tokenStore';
import { bearer } from './credentials';

/** Per-tag access tokens (Tinyid's model): 32 random bytes, stored and looked up by their SHA-256. */
export const SCOPED_TOKEN_PREFIX = 'lts_';

/** A new token: shown once (the create answer), stored only as its hash. */
export function newScopedToken(): { id: string; secret: string; hash: string } {
  const secret = SCOPED_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { id: randomBytes(9).toString('base64url'), secret, hash: tokenHash(secret) };
}

/** SHA-256 of a token, hex: the leaf_token.token_hash column and the in-memory table's key. */
export function tokenHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** What a credential may draw: every route (LEAF_ID_TOKEN, or no auth configured), or the listed tags. */
export type Grant = typeof ALL_ROUTES | ReadonlySet<string>;
export const ALL_ROUTES = 'all' as const;

/** Who may use the ID routes, decided in memory from a hash → tags map the refresher replaces whole. */
export class IdAccess {
  private readonly idTokenHash: Buffer | null;
  private byHash: ReadonlyMap<string, ReadonlySet<string>> = new Map();
  private anyRow = false;
  /** False until the first load: the ID routes wait for it rather than guess (fail closed). */
  loaded: boolean;
  /** True when a request needs no credential: the fast lane then skips reading the Authorization header. */
  open: boolean;

  constructor(idToken: string | null, { loaded = false }: { loaded?: boolean } = {}) {
    this.idTokenHash = idToken === null ? null : createHash('sha256').update(idToken).digest();
    this.loaded = loaded;
    this.open = loaded && idToken === null;
  }

  /** Replaces the table with leaf_token's rows (revoked ones count only toward "a token exists"). */
  replace(rows: readonly StoredToken[]): void {
    const next = new Map<string, ReadonlySet<string>>();
    for (const row of rows) if (row.revokedAt === null) next.set(row.tokenHash, new Set(row.tags));
    this.byHash = next;
    this.anyRow = rows.length > 0;
    this.loaded = true;
    this.open = this.idTokenHash === null && !this.anyRow;
  }

  /** Active scoped tokens in the table. */
  get size(): number {
    return this.byHash.size;
  }

  /** What the request's credential may draw; `unauthorized` (401) when it is missing, unknown or revoked. */
  grant(authorization: string | null | undefined): Grant {
    if (this.open) return ALL_ROUTES;
    const presented = bearer(authorization);
    if (presented !== null) {
      const digest = createHash('sha256').update(presented).digest();
      if (this.idTokenHash !== null && timingSafeEqual(digest, this.idTokenHash)) return ALL_ROUTES;
      const tags = this.byHash.get(digest.toString('hex'));
      if (tags !== undefined) return tags;
    }
    throw new LeafError(
      'unauthorized',
      'The ID routes require a token (Authorization: Bearer …): LEAF_ID_TOKEN or an access token from the console.',
    );
  }
}

/** Throws `forbidden_tag` (403) unless the grant covers the tag. */
export function requireGrant(grant: Grant, bizTag: string): void {
  if (grant !== ALL_ROUTES && !grant.has(bizTag)) {
    throw new LeafError('forbidden_tag', `This access token does not cover tag "${bizTag}".`);
  }
}

/** Throws `forbidden_tag` (403) for a scoped token on a route that has no tag (snowflake). */
export function requireAllRoutes(grant: Grant): void {
  if (grant !== ALL_ROUTES) {
    throw new LeafError(
      'forbidden_tag',
      'Access tokens draw segment IDs of their tags only; the snowflake routes need LEAF_ID_TOKEN.',
    );
  }
}
