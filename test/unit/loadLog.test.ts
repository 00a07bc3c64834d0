import { describe, expect, it } from 'vitest';
import { LOAD_LOG_CAPACITY, LoadLog } from '@/lib/metrics/loadLog';
import type { SegmentLoadRecord } from '@/lib/segment/buffer';

const load = (at: number, ok = true): SegmentLoadRecord => ({
  at,
  durationMs: 1,
  step: 10,
  purpose: 'segment',
  ok,
  ...(ok ? {} : { error: 'store_unavailable' }),
});

describe('LoadLog', () => {
  it('keeps each tag apart, oldest first', () => {
    const log = new LoadLog();
    log.record('a', load(1));
    log.record('b', load(2));
    log.record('a', load(3, false));
    expect(log.loads('a')).toEqual([load(1), load(3, false)]);
    expect(log.loads('b')).toEqual([load(2)]);
    expect(log.loads('never')).toEqual([]);
  });

  it('is bounded per tag: past capacity the oldest records go', () => {
    const log = new LoadLog(3);
    for (let at = 1; at <= 7; at++) log.record('a', load(at));
    expect(log.loads('a').map((l) => l.at)).toEqual([5, 6, 7]);
  });

  it('holds 200 records per tag by default', () => {
    const log = new LoadLog();
    for (let at = 1; at <= LOAD_LOG_CAPACITY + 50; at++) log.record('a', load(at));
    const loads = log.loads('a');
    expect(LOAD_LOG_CAPACITY).toBe(200);
    expect(loads).toHaveLength(200);
    expect(loads[0]!.at).toBe(51);
    expect(loads.at(-1)!.at).toBe(250);
  });

  it('a copy is returned: the caller cannot change the log', () => {
    const log = new LoadLog();
    log.record('a', load(1));
    log.loads('a').pop();
    expect(log.loads('a')).toHaveLength(1);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new LoadLog(0)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });
});
