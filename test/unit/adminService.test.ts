import { describe, expect, it } from 'vitest';
import { tagDetail } from '@/lib/admin/service';
import { LoadLog } from '@/lib/metrics/loadLog';
import { RateTracker } from '@/lib/metrics/rateTracker';
import type { Runtime } from '@/lib/runtime';
import { SegmentEngine } from '@/lib/segment/engine';
import { FakeClock, FakeStore, outcome } from '../support/fakes';

describe('admin tag detail', () => {
  it('takes the load table and step history from the load log the engine reports to', async () => {
    const store = new FakeStore([{ bizTag: 'order', step: 10 }]);
    const clock = new FakeClock();
    const loadLog = new LoadLog();
    const segments = new SegmentEngine({
      store,
      clock,
      refreshIntervalMs: 0,
      onLoad: (tag, r) => loadLog.record(tag, r),
    });
    await segments.start();
    await segments.takeIds('order', 10);
    store.failWith = new Error('db down');
    await outcome(() => segments.takeIds('order', 30)).catch(() => undefined);
    const rt = {
      store: { tags: store, semantics: store, order: { readOrder: async () => ({ rows: [], dbNowMs: 0 }) } },
      segments,
      console: { loadLog, rates: new RateTracker({ clock }) },
    } as unknown as Pick<Runtime, 'store' | 'segments' | 'console'>;

    const detail = await tagDetail(rt, 'order');
    expect(detail.history.loads.map((l) => l.ok)).toEqual(loadLog.loads('order').map((l) => l.ok));
    expect(detail.history.loads.some((l) => !l.ok)).toBe(true);
    expect(detail.history.steps).toEqual(
      loadLog
        .loads('order')
        .filter((l) => l.ok)
        .map((l) => ({ t: l.at, step: l.step })),
    );
    expect(detail.tag.engine).not.toHaveProperty('loads');
    expect(detail.tag.engine).toMatchObject({ step: 20, minStep: 10 });
  });
});
