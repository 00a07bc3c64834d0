import { describe, expect, it } from 'vitest';
import { RateTracker } from '@/lib/metrics/rateTracker';
import { FakeClock } from '../support/fakes';

function tracker(keepMs?: number) {
  const clock = new FakeClock(1_800_000_000_000); // a multiple of 5 s
  return { clock, rates: new RateTracker({ clock, keepMs }) };
}

describe('RateTracker', () => {
  it('computes IDs/s over the window from samples', () => {
    const { clock, rates } = tracker();
    for (let s = 0; s <= 20; s++) {
      rates.record(new Map([['order', s * 500]])); // 500 IDs/s
      clock.advance(1_000);
    }
    expect(rates.ratePerSec('order')).toBe(500);
    expect(rates.ratePerSec('nope')).toBe(0);
  });

  it('the rate follows a change in load within the window', () => {
    const { clock, rates } = tracker();
    let total = 0;
    for (let s = 0; s < 30; s++) {
      total += s < 20 ? 100 : 1_000;
      rates.record(new Map([['order', total]]));
      clock.advance(1_000);
    }
    expect(rates.ratePerSec('order', 5_000)).toBe(1_000);
    expect(rates.ratePerSec('order', 10_000)).toBe(1_000);
    expect(rates.ratePerSec('order', 20_000)).toBe(550);
  });

  it('buckets history per 5 s with empty buckets kept', () => {
    const { clock, rates } = tracker();
    const t0 = clock.now();
    rates.record(new Map([['order', 0]]));
    clock.advance(1_000);
    rates.record(new Map([['order', 10]]));
    clock.advance(10_000); // idle for 10 s
    rates.record(new Map([['order', 25]]));
    // The bucket at t0 + 10 s is still filling: it is not shown as a low rate.
    expect(rates.history('order')).toEqual([
      { t: t0, ids: 10 },
      { t: t0 + 5_000, ids: 0 },
    ]);
    clock.advance(5_000);
    rates.record(new Map([['order', 25]]));
    expect(rates.history('order')).toEqual([
      { t: t0, ids: 10 },
      { t: t0 + 5_000, ids: 0 },
      { t: t0 + 10_000, ids: 15 },
    ]);
  });

  it('claims no bucket it did not sample: none before its start, the re-creation, or the kept window', () => {
    const { clock, rates } = tracker(60_000);
    const started = clock.now();
    expect(rates.history('order')).toEqual([]);
    clock.advance(700);
    // IDs taken before the first sample (a second after the start) are counted: every total was 0 at the start.
    for (let s = 0; s <= 12; s++) {
      rates.record(new Map([['order', 5 + s * 10]]));
      clock.advance(1_000);
    }
    expect(rates.history('order')[0]).toEqual({ t: started, ids: 45 });
    expect(rates.history('other')).toEqual(rates.history('order').map((p) => ({ t: p.t, ids: 0 })));
    rates.record(new Map([['order', 3]])); // re-created
    const recreated = clock.now();
    for (let s = 0; s < 11; s++) {
      clock.advance(1_000);
      rates.record(new Map([['order', 3 + s]]));
    }
    expect(rates.history('order')[0]!.t).toBeGreaterThanOrEqual(recreated);
    clock.advance(120_000);
    rates.record(new Map([['order', 100]]));
    expect(rates.history('order')[0]!.t).toBeGreaterThanOrEqual(clock.now() - 60_000);
  });

  it('drops samples older than the kept window and forgets deleted tags', () => {
    const { clock, rates } = tracker(60_000);
    for (let s = 0; s < 200; s++) {
      rates.record(new Map([['order', s]]));
      clock.advance(1_000);
    }
    const history = rates.history('order');
    expect(history.length).toBeLessThanOrEqual(12);
    expect(history.reduce((a, p) => a + p.ids, 0)).toBeLessThanOrEqual(61);
    rates.record(new Map());
    expect(rates.history('order').every((p) => p.ids === 0)).toBe(true);
  });

  it('a re-created tag (total went down) restarts its history instead of a negative rate', () => {
    const { clock, rates } = tracker();
    rates.record(new Map([['order', 1_000]]));
    clock.advance(1_000);
    rates.record(new Map([['order', 5]]));
    clock.advance(1_000);
    rates.record(new Map([['order', 15]]));
    expect(rates.ratePerSec('order')).toBe(10);
  });

  it('a tag that appears between samples has its first IDs counted, not lost', () => {
    const { clock, rates } = tracker();
    const t0 = clock.now();
    rates.record(new Map([['old', 0]]));
    clock.advance(1_000);
    rates.record(
      new Map([
        ['old', 0],
        ['new', 40],
      ]),
    ); // created and used within the last second
    expect(rates.ratePerSec('new')).toBe(40);
    clock.advance(4_000);
    rates.record(
      new Map([
        ['old', 0],
        ['new', 40],
      ]),
    );
    expect(rates.history('new').reduce((a, p) => a + p.ids, 0)).toBe(40);
    expect(rates.history('new')[0]?.t).toBe(t0);
  });
});
