/**
 * leaf_token on MysqlStore (real MariaDB), PostgresStore (real PostgreSQL) and SqliteStore (real file), the same cases: a created token is
 * listed with its hash and tags, its audit entry commits with it (with leaf_audit gone, nothing is created), a
 * revoke sets revoked_at once, and an unknown id is token_not_found.
 */
import { describe, expect, it } from 'vitest';
import { newScopedToken } from '../../lib/auth/scopedTokens';
import type { AuditStamp } from '../../lib/audit';
import type { StoredToken } from '../../lib/auth/tokenStore';
import { rawStoreOpener } from '../support/rawStores';
import { codeOf } from '../support/outcomes';

const openStore = rawStoreOpener('leaf-it-tokens-');

const stamp = (at: number): AuditStamp => ({ actor: 'token:abcdef01', address: '127.0.0.1', nodeId: 'n1', at });

function token(tags: string[], createdAt: number): StoredToken {
  const t = newScopedToken();
  return {
    id: t.id,
    name: `svc ${createdAt}`,
    tags,
    tokenHash: t.hash,
    createdAt,
    createdBy: 'token:abcdef01',
    revokedAt: null,
  };
}

for (const dialect of ['sqlite', 'mysql', 'postgres'] as const) {
  describe(`leaf_token on ${dialect}`, () => {
    it('creates, lists, revokes once, audits both in the same transaction', async () => {
      const { store, exec } = await openStore(dialect);
      const a = token(['order', 'user'], 1_800_000_000_001);
      const b = token(['pay'], 1_800_000_000_002);
      expect(await store.tokens.createToken(a, stamp(a.createdAt))).toEqual({
        id: a.id,
        name: a.name,
        tags: a.tags,
        createdAt: a.createdAt,
        createdBy: a.createdBy,
        revokedAt: null,
      });
      await store.tokens.createToken(b, stamp(b.createdAt));
      expect(await store.tokens.listTokens()).toEqual([a, b]);

      const revoked = await store.tokens.revokeToken(a.id, 1_800_000_000_100, stamp(1_800_000_000_100));
      expect(revoked.revokedAt).toBe(1_800_000_000_100);
      expect((await store.tokens.revokeToken(a.id, 1_800_000_000_200, stamp(1_800_000_000_200))).revokedAt).toBe(
        1_800_000_000_100,
      );
      expect((await store.tokens.listTokens()).map((t) => t.revokedAt)).toEqual([1_800_000_000_100, null]);
      expect(await codeOf(store.tokens.revokeToken('AAAAAAAAAAAA', 1, stamp(1)))).toBe('token_not_found');

      const audit = await store.audit.listAudit({ limit: 10 });
      expect(audit.map((e) => e.action)).toEqual(['token.revoke', 'token.create', 'token.create']);
      expect(audit[0]!.before).toMatchObject({ id: a.id, revokedAt: null });
      expect(audit[0]!.after).toMatchObject({ id: a.id, revokedAt: 1_800_000_000_100 });
      expect(JSON.stringify(audit)).not.toContain(a.tokenHash);

      // No audit table: the create rolls back with it.
      await exec(
        dialect === 'mysql'
          ? 'RENAME TABLE leaf_audit TO leaf_audit_hidden'
          : 'ALTER TABLE leaf_audit RENAME TO leaf_audit_hidden',
      );
      const c = token(['x'], 1_800_000_000_300);
      expect(await codeOf(store.tokens.createToken(c, stamp(c.createdAt)))).toBe('store_unavailable');
      await exec(
        dialect === 'mysql'
          ? 'RENAME TABLE leaf_audit_hidden TO leaf_audit'
          : 'ALTER TABLE leaf_audit_hidden RENAME TO leaf_audit',
      );
      expect((await store.tokens.listTokens()).map((t) => t.id)).toEqual([a.id, b.id]);
    });
  });
}
