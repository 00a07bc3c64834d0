import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ALL_ROUTES,
  IdAccess,
  SCOPED_TOKEN_PREFIX,
  newScopedToken,
  requireGrant,
  tokenHash,
} from '@/lib/auth/scopedTokens';
import { TokenRefresher } from '@/lib/auth/tokenRefresh';
import type { Answer } from '@/lib/http/answer';
import { createIdHandler } from '@/lib/http/idHandler';
import { SegmentEngine } from '@/lib/segment/engine';
import type { LeafStore } from '@/lib/store/leafStore';
import type { StoredToken } from '@/lib/auth/tokenStore';
import { FakeClock, FakeStore } from '../support/fakes';
import { statusAndCodeOf } from '../support/outcomes';

function row(secret: string, tags: string[], over: Partial<StoredToken> = {}): StoredToken {
  return {
    id: 'id' + tags.join('').padEnd(10, 'x').slice(0, 10),
    name: 'n',
    tags,
    tokenHash: tokenHash(secret),
    createdAt: 1,
    createdBy: 'token:x',
    revokedAt: null,
    ...over,
  };
}

describe('scoped token hashing', () => {
  it('a new token is random, prefixed, and stored only as its SHA-256', () => {
    const a = newScopedToken();
    const b = newScopedToken();
    expect(a.secret.startsWith(SCOPED_TOKEN_PREFIX)).toBe(true);
    expect(a.secret.length).toBeGreaterThanOrEqual(SCOPED_TOKEN_PREFIX.length + 43); // 32 bytes, base64url
    expect(a.secret).not.toBe(b.secret);
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(a.hash).toBe(createHash('sha256').update(a.secret).digest('hex'));
    expect(a.hash).not.toContain(a.secret);
  });
});

describe('IdAccess', () => {
  it('is open with no LEAF_ID_TOKEN and no token row; not open before its first load', async () => {
    const access = new IdAccess(null);
    expect(access.open).toBe(false);
    expect(await statusAndCodeOf(() => access.grant(undefined))).toBe('401 unauthorized');
    access.replace([]);
    expect(access.open).toBe(true);
    expect(access.grant(undefined)).toBe(ALL_ROUTES);
  });

  it('a scoped token draws only its tags; unknown and revoked tokens are 401; LEAF_ID_TOKEN draws everything', async () => {
    const access = new IdAccess('plain-id-token');
    access.replace([row('lts_a', ['order', 'user']), row('lts_gone', ['order'], { id: 'revokedxxxxx', revokedAt: 5 })]);
    expect(access.open).toBe(false);
    expect(access.size).toBe(1);
    const grant = access.grant('Bearer lts_a');
    expect(await statusAndCodeOf(() => requireGrant(grant, 'order'))).toBe('ok');
    expect(await statusAndCodeOf(() => requireGrant(grant, 'user'))).toBe('ok');
    expect(await statusAndCodeOf(() => requireGrant(grant, 'invoice'))).toBe('403 forbidden_tag');
    expect(await statusAndCodeOf(() => access.grant('Bearer lts_gone'))).toBe('401 unauthorized');
    expect(await statusAndCodeOf(() => access.grant('Bearer lts_A'))).toBe('401 unauthorized');
    expect(await statusAndCodeOf(() => access.grant(null))).toBe('401 unauthorized');
    expect(access.grant('bearer plain-id-token')).toBe(ALL_ROUTES);
  });

  it('once a token row exists the routes stay closed, even after every token is revoked', async () => {
    const access = new IdAccess(null);
    access.replace([row('lts_a', ['order'], { revokedAt: 9 })]);
    expect(access.open).toBe(false);
    expect(await statusAndCodeOf(() => access.grant(undefined))).toBe('401 unauthorized');
  });
});

describe('TokenRefresher', () => {
  function tokenStore(initial: StoredToken[]) {
    const state = { rows: initial, reads: 0 };
    return { state, store: { listTokens: async () => (state.reads++, state.rows.map((r) => ({ ...r }))) } };
  }
  const settle = () => new Promise((r) => setImmediate(r));

  it('loads before serving, sees a revoke on the next interval, and at once on refresh()', async () => {
    const clock = new FakeClock();
    const { state, store } = tokenStore([row('lts_a', ['order'])]);
    const access = new IdAccess(null);
    const refresher = new TokenRefresher({ store, access, clock, intervalMs: 5_000 });
    await refresher.start();
    expect(access.grant('Bearer lts_a')).not.toBe(ALL_ROUTES);
    state.rows = [{ ...state.rows[0]!, revokedAt: clock.now() }];
    clock.advance(4_999);
    await settle();
    expect(access.size).toBe(1); // not yet: another node's revoke waits for the interval
    clock.advance(1);
    await settle();
    expect(await statusAndCodeOf(() => access.grant('Bearer lts_a'))).toBe('401 unauthorized');
    state.rows = [...state.rows, row('lts_b', ['user'], { id: 'bbbbbbbbbbbb' })];
    await refresher.refresh();
    expect(await statusAndCodeOf(() => requireGrant(access.grant('Bearer lts_b'), 'user'))).toBe('ok');
    refresher.stop();
    expect(clock.pendingTimers).toBe(0);
  });

  it('a read that finishes after a newer one does not bring back the older table', async () => {
    const access = new IdAccess(null);
    let release: (rows: StoredToken[]) => void = () => {};
    const reads: Array<Promise<StoredToken[]>> = [new Promise((r) => (release = r)), Promise.resolve([])];
    const refresher = new TokenRefresher({
      store: { listTokens: () => reads.shift()! },
      access,
      clock: new FakeClock(),
      intervalMs: 1_000,
    });
    const slow = refresher.refresh();
    await refresher.refresh(); // the newer read: an empty table
    release([row('lts_old', ['order'])]);
    await slow;
    expect(access.open).toBe(true);
    expect(access.size).toBe(0);
  });
});

describe('ID handler with access tokens', () => {
  async function setup(access: IdAccess) {
    const store = new FakeStore([
      { bizTag: 'order', step: 100 },
      { bizTag: 'user', step: 100 },
    ]);
    const segments = new SegmentEngine({ store, refreshIntervalMs: 0, loadWaitMs: 50 });
    await segments.start();
    const handle = createIdHandler({
      runtime: () => ({ segments, store: store as unknown as LeafStore, snowflake: null }),
      access,
    });
    return async (url: string, auth?: string) => (await handle('GET', url, auth)) as Answer;
  }
  const code = (a: Answer) => `${a.status} ${JSON.parse(a.body).error?.code ?? ''}`;

  it('serves a scoped token on its tag on every segment route; 403 JSON on another tag, 401 unknown', async () => {
    const access = new IdAccess('plain');
    access.replace([row('lts_order', ['order'])]);
    const call = await setup(access);
    const auth = 'Bearer lts_order';
    expect(JSON.parse((await call('/api/id/segment/order', auth)).body)).toEqual({ tag: 'order', id: '2' });
    expect(JSON.parse((await call('/api/id/segment/order?count=2', auth)).body).ids).toEqual(['3', '4']);
    expect((await call('/api/id/segment/order/range?count=10', auth)).status).toBe(200);
    expect((await call('/api/segment/get/order', auth)).body).toMatch(/^\d+$/);
    for (const url of [
      '/api/id/segment/user',
      '/api/id/segment/user?count=2',
      '/api/id/segment/user/range?count=10',
      '/api/segment/get/user',
      '/api/id/snowflake',
      '/api/snowflake/get/x',
    ]) {
      const a = await call(url, auth);
      expect(code(a), url).toBe('403 forbidden_tag');
      expect(a.headers['content-type']).toMatch(/^application\/json/);
    }
    expect(code(await call('/api/id/segment/order', 'Bearer lts_other'))).toBe('401 unauthorized');
    expect(code(await call('/api/id/segment/order'))).toBe('401 unauthorized');
    expect((await call('/api/id/segment/user', 'Bearer plain')).status).toBe(200);
  });

  it('with no token at all the routes stay open (as with LEAF_ID_TOKEN unset before)', async () => {
    const access = new IdAccess(null);
    access.replace([]);
    const call = await setup(access);
    expect((await call('/api/id/segment/user')).status).toBe(200);
  });

  it('before the first load the routes wait for the runtime, then decide (never open by default)', async () => {
    const access = new IdAccess(null);
    const store = new FakeStore([{ bizTag: 'order', step: 100 }]);
    const segments = new SegmentEngine({ store, refreshIntervalMs: 0, loadWaitMs: 50 });
    await segments.start();
    const rt = { segments, store: store as unknown as LeafStore, snowflake: null };
    let opened: (v: typeof rt) => void = () => {};
    const runtime = new Promise<typeof rt>((r) => (opened = r));
    const handle = createIdHandler({ runtime: () => runtime, access });
    const pending = handle('GET', '/api/id/segment/order') as Promise<Answer>;
    access.replace([row('lts_a', ['order'])]);
    opened(rt);
    expect(code(await pending)).toBe('401 unauthorized');
  });
});
