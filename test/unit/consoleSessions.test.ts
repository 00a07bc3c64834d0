/**
 * Console sessions kept in the database (issue 38): a cookie is honoured only while its row is live — not ended
 * (logout, an operator's "End", sign out everywhere), not idle for 30 minutes, not past its absolute 12 hours, and
 * of the current admin token. The store here keeps rows in a Map; the dialects run test/integration/sessionStore.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleSessions, SESSION_IDLE_MS, SESSION_TOUCH_MS } from '@/lib/auth/consoleSessions';
import { SESSION_TTL_MS } from '@/lib/auth/credentials';
import type { SessionRow, SessionStore } from '@/lib/auth/sessionStore';

class MapSessions implements SessionStore {
  rows = new Map<string, SessionRow>();
  touches = 0;
  async insertSession(row: SessionRow) {
    this.rows.set(row.id, { ...row });
  }
  async getSession(id: string) {
    return this.rows.get(id) ?? null;
  }
  async touchSession(id: string, at: number) {
    this.touches++;
    const r = this.rows.get(id);
    if (r && r.endedAt === null && r.lastSeenAt < at) r.lastSeenAt = at;
  }
  async liveSessions(tokenTag: string, now: number) {
    return [...this.rows.values()].filter((r) => r.tokenTag === tokenTag && r.endedAt === null && r.expiresAt > now);
  }
  async endSessions(ids: string[], at: number) {
    let n = 0;
    for (const id of ids) {
      const r = this.rows.get(id);
      if (r && r.endedAt === null) {
        r.endedAt = at;
        n++;
      }
    }
    return n;
  }
  async pruneSessions(before: number) {
    let n = 0;
    for (const [id, r] of this.rows) {
      if ((r.endedAt !== null && r.endedAt < before) || r.expiresAt < before) {
        this.rows.delete(id);
        n++;
      }
    }
    return n;
  }
}

const T0 = 1_800_000_000_000;
const TOKEN = 'console-sessions-token-0123456789';

describe('ConsoleSessions', () => {
  it('a logout ends the session: the same cookie is refused afterwards', async () => {
    const sessions = new ConsoleSessions(new MapSessions(), TOKEN);
    const { value, sessionId } = await sessions.begin('192.0.2.1', 'test-agent', T0);
    expect(await sessions.verify(value, T0 + 1)).toBe(sessionId);
    expect(await sessions.end([sessionId], T0 + 2)).toBe(1);
    expect(await sessions.verify(value, T0 + 3)).toBeNull();
  });

  it('idle for 30 minutes ends it; a request within the idle time keeps it', async () => {
    const store = new MapSessions();
    const sessions = new ConsoleSessions(store, TOKEN);
    const a = await sessions.begin('192.0.2.1', '', T0);
    const b = await sessions.begin('192.0.2.1', '', T0);
    expect(await sessions.verify(a.value, T0 + SESSION_IDLE_MS - 1)).toBe(a.sessionId); // and moves last seen
    expect(await sessions.verify(b.value, T0 + SESSION_IDLE_MS)).toBeNull();
    expect(await sessions.verify(a.value, T0 + 2 * SESSION_IDLE_MS - 2)).toBe(a.sessionId);
  });

  it('writes last-seen at most once a minute', async () => {
    const store = new MapSessions();
    const sessions = new ConsoleSessions(store, TOKEN);
    const { value } = await sessions.begin('192.0.2.1', '', T0);
    for (let t = 0; t < SESSION_TOUCH_MS; t += 1_000) await sessions.verify(value, T0 + t);
    expect(store.touches).toBe(0);
    await sessions.verify(value, T0 + SESSION_TOUCH_MS);
    expect(store.touches).toBe(1);
  });

  it('ends at its absolute expiry, however active', async () => {
    const sessions = new ConsoleSessions(new MapSessions(), TOKEN);
    const { value, sessionId } = await sessions.begin('192.0.2.1', '', T0);
    let t = T0;
    while (t + SESSION_IDLE_MS / 2 < T0 + SESSION_TTL_MS) {
      t += SESSION_IDLE_MS / 2;
      expect(await sessions.verify(value, t)).toBe(sessionId);
    }
    expect(await sessions.verify(value, T0 + SESSION_TTL_MS)).toBeNull();
  });

  it('a rotated admin token ends every session, and lists none of them', async () => {
    const store = new MapSessions();
    const before = new ConsoleSessions(store, TOKEN);
    const { value } = await before.begin('192.0.2.1', '', T0);
    const after = new ConsoleSessions(store, 'rotated-token-0123456789-abcdef');
    expect(await after.verify(value, T0 + 1)).toBeNull();
    expect(await after.live(T0 + 1)).toEqual([]);
    expect((await before.live(T0 + 1)).length).toBe(1);
  });

  it('sign out everywhere ends every live session of the token, and lists them by address and agent', async () => {
    const sessions = new ConsoleSessions(new MapSessions(), TOKEN);
    const a = await sessions.begin('192.0.2.1', 'agent-a', T0);
    const b = await sessions.begin('198.51.100.2', 'agent-b', T0 + 1);
    const live = await sessions.live(T0 + 2);
    expect(live.map((s) => [s.address, s.userAgent]).sort()).toEqual([
      ['192.0.2.1', 'agent-a'],
      ['198.51.100.2', 'agent-b'],
    ]);
    expect(JSON.stringify(live)).not.toContain(a.value);
    expect((await sessions.endAll(T0 + 3)).sort()).toEqual([a.sessionId, b.sessionId].sort());
    expect(await sessions.verify(a.value, T0 + 4)).toBeNull();
    expect(await sessions.verify(b.value, T0 + 4)).toBeNull();
    expect(await sessions.live(T0 + 4)).toEqual([]);
  });

  it('a signed cookie whose row is gone (pruned, another database) is refused', async () => {
    const store = new MapSessions();
    const sessions = new ConsoleSessions(store, TOKEN);
    const { value } = await sessions.begin('192.0.2.1', '', T0);
    store.rows.clear();
    expect(await sessions.verify(value, T0 + 1)).toBeNull();
  });
});
