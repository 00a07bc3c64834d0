/** The tag list both engines keep fresh: one read at a time, misses rate-limited, the store's failure told apart. */
import { describe, expect, it } from 'vitest';
import { LeafError, isLeafError } from '@/lib/errors';
import { silentLogger } from '@/lib/log';
import { TagDirectory } from '@/lib/segment/tagDirectory';
import { FakeClock, flush } from '../support/fakes';

function directory(read: () => Promise<string[]>, clock = new FakeClock()) {
  const names = new Set<string>();
  let reads = 0;
  const d = new TagDirectory({
    clock,
    logger: silentLogger,
    refreshIntervalMs: 60_000,
    missRefreshMinIntervalMs: 1_000,
    failedEvent: 'tag_refresh_failed',
    reread: async () => {
      reads++;
      const list = await read();
      names.clear();
      for (const n of list) names.add(n);
    },
  });
  const find = (name: string) =>
    d.find(
      () => names.has(name),
      () => new LeafError('tag_not_found', name),
    );
  return { d, names, clock, find, reads: () => reads };
}

describe('TagDirectory', () => {
  it('refreshes once at start and on its interval; concurrent refreshes share one read', async () => {
    const t = directory(async () => ['a']);
    await t.d.start();
    expect(t.reads()).toBe(1);
    await Promise.all([t.d.refresh(), t.d.refresh(), t.d.refresh()]);
    expect(t.reads()).toBe(2);
    t.clock.advance(60_000);
    await flush();
    expect(t.reads()).toBe(3);
    t.d.stop();
    t.clock.advance(120_000);
    expect(t.reads()).toBe(3);
  });

  it('a miss re-reads once (rate-limited): a name created meanwhile is found; misses within the interval share one read', async () => {
    let list = ['a'];
    const t = directory(async () => list);
    await t.d.start();
    list = ['a', 'b'];
    t.clock.advance(1_000); // the last read is old enough: the miss reads at once
    await t.find('b');
    expect(t.names.has('b')).toBe(true);
    const misses = [t.find('x'), t.find('y'), t.find('z')].map((p) => p.catch((e: unknown) => e));
    t.clock.advance(1_000);
    const errors = await Promise.all(misses);
    expect(errors.map((e) => isLeafError(e) && e.code)).toEqual(['tag_not_found', 'tag_not_found', 'tag_not_found']);
    expect(t.reads()).toBe(3);
  });

  it("a miss while the store is down is the store's failure, not a 404", async () => {
    let down = false;
    const t = directory(async () => {
      if (down) throw new Error('db down');
      return ['a'];
    });
    await t.d.start();
    down = true;
    t.clock.advance(1_000);
    const error = await t.find('b').catch((e: unknown) => e);
    expect(isLeafError(error) && error.code).toBe('store_unavailable');
    expect(t.d.lastRefreshError?.message).toBe('db down');
  });
});
