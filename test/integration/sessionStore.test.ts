/**
 * leaf_session on SqliteStore (real file), MysqlStore (real MariaDB) and PostgresStore (real PostgreSQL), the same
 * cases: a session begun is verified and listed; ended (one, or all) it is refused at once through another store
 * on the same database — another node; last-seen only moves forward; old rows are pruned, live ones kept.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleSessions, SESSION_TOUCH_MS } from '../../lib/auth/consoleSessions';
import { rawStoreOpener } from '../support/rawStores';

const openStore = rawStoreOpener('leaf-it-sessions-');
const TOKEN = 'session-store-token-0123456789';
const T0 = Date.now();

for (const dialect of ['sqlite', 'mysql', 'postgres'] as const) {
  describe(`leaf_session on ${dialect}`, () => {
    it('begins, verifies, lists; an end on one node is a refusal on the other at its next request', async () => {
      const { store } = await openStore(dialect);
      const nodeA = new ConsoleSessions(store.sessions, TOKEN);
      const nodeB = new ConsoleSessions(store.sessions, TOKEN);
      const a = await nodeA.begin('192.0.2.7', 'Mozilla/5.0 (test) ' + 'x'.repeat(400), T0);
      const b = await nodeA.begin('2001:db8::1', 'curl/8', T0 + 1);
      expect(await nodeB.verify(a.value, T0 + 2)).toBe(a.sessionId);
      const live = await nodeB.live(T0 + 2);
      expect(live.map((s) => s.id)).toEqual([b.sessionId, a.sessionId]); // newest first
      expect(live[1]).toMatchObject({ address: '192.0.2.7', createdAt: T0, lastSeenAt: T0 });
      expect(live[1]!.userAgent.length).toBe(256);

      expect(await nodeA.end([a.sessionId], T0 + 3)).toBe(1);
      expect(await nodeA.end([a.sessionId], T0 + 4)).toBe(0); // once
      expect(await nodeB.verify(a.value, T0 + 5)).toBeNull();
      expect((await nodeB.live(T0 + 5)).map((s) => s.id)).toEqual([b.sessionId]);

      expect(await nodeB.endAll(T0 + 6)).toEqual([b.sessionId]);
      expect(await nodeA.verify(b.value, T0 + 7)).toBeNull();
    });

    it('last seen moves forward only, and a touch never revives an ended session', async () => {
      const { store } = await openStore(dialect);
      const sessions = new ConsoleSessions(store.sessions, TOKEN);
      const s = await sessions.begin('192.0.2.8', '', T0);
      await sessions.verify(s.value, T0 + SESSION_TOUCH_MS + 5);
      await store.sessions.touchSession(s.sessionId, T0 + 10); // a late, older touch
      expect((await store.sessions.getSession(s.sessionId))?.lastSeenAt).toBe(T0 + SESSION_TOUCH_MS + 5);
      await sessions.end([s.sessionId], T0 + SESSION_TOUCH_MS + 6);
      await store.sessions.touchSession(s.sessionId, T0 + 2 * SESSION_TOUCH_MS);
      expect(await store.sessions.getSession(s.sessionId)).toMatchObject({
        lastSeenAt: T0 + SESSION_TOUCH_MS + 5,
        endedAt: T0 + SESSION_TOUCH_MS + 6,
      });
    });

    it('prunes rows ended or expired before the cut, keeps the rest', async () => {
      const { store } = await openStore(dialect);
      const sessions = new ConsoleSessions(store.sessions, TOKEN);
      const old = await sessions.begin('192.0.2.9', '', T0);
      const kept = await sessions.begin('192.0.2.9', '', T0);
      await sessions.end([old.sessionId], T0 + 1);
      expect(await store.sessions.pruneSessions(T0 + 2)).toBe(1);
      expect(await store.sessions.getSession(old.sessionId)).toBeNull();
      expect(await store.sessions.getSession(kept.sessionId)).not.toBeNull();
    });
  });
}
