import { describe, expect, it } from 'vitest';
import { rateSeries, showDuration, showRunway, showUptime, runwayLow, stepAdvice } from '@/components/console/display';
import { chartDataOf } from '@/components/console/RateSource';
import { bufferBars } from '@/components/console/BufferChart';
import { stepNeeded } from '@/lib/fleet/runway';

describe('fleet formatting', () => {
  it('reads a runway in the largest natural unit, and idle when nothing is consumed', () => {
    expect(showDuration(8.33)).toBe('8.3 s');
    expect(showDuration(42.4)).toBe('42 s');
    expect(showDuration(120)).toBe('2 min');
    expect(showDuration(5400)).toBe('1.5 h');
    expect(showDuration(3 * 86_400)).toBe('3 d');
    expect(showRunway(null)).toBe('idle');
  });

  it('warns below the threshold only, never for an idle tag', () => {
    expect(runwayLow(119, 120)).toBe(true);
    expect(runwayLow(120, 120)).toBe(false);
    expect(runwayLow(null, 120)).toBe(false);
    expect(runwayLow(5, undefined)).toBe(false);
  });

  it('says which step a database restart needs, and nothing when the step already lasts', () => {
    expect(stepAdvice(1000, 120, 120, stepNeeded(1000, 120, 120))).toBe(
      "This tag's step of 1,000 lasts 8.3 s at 120 IDs/s; a database restart of 2 min needs a step of at least 14,400 — raise the step.",
    );
    expect(stepAdvice(20_000, 120, 120, stepNeeded(20_000, 120, 120))).toBeNull();
  });

  it('uptime in whole units', () => {
    expect(showUptime(12_900)).toBe('12 s');
    expect(showUptime(65 * 60_000)).toBe('1 h 5 min');
    expect(showUptime(50 * 3_600_000)).toBe('2 d 2 h');
  });

  it('the charts draw this node, the fleet (merged, gaps kept) or one node; leases apart from steps', () => {
    const seg = (at: number, step: number) => ({ at, durationMs: 1, step, purpose: 'segment' as const, ok: true });
    const lease = (at: number, step: number) => ({ at, durationMs: 1, step, purpose: 'lease' as const, ok: true });
    const here = { rate: [{ t: 0, ids: 1 }], loads: [seg(0, 4000), lease(5, 10_000_000)] };
    const record = (nodeId: string, ids: number) => ({
      nodeId,
      instanceId: nodeId,
      startedAt: 0,
      bucketMs: 5000,
      rate: [{ t: 0, ids }],
      loads: [seg(1, 8000)],
    });
    const fleet = {
      bucketMs: 5000,
      nodes: [
        { nodeId: 'a', state: 'up' as const, history: record('a', 2), missing: null },
        { nodeId: 'b', state: 'up' as const, history: record('b', 3), missing: null },
        { nodeId: 'c', state: 'gone' as const, history: null, missing: 'gone' },
      ],
      rate: [{ t: 0, ids: null }],
    };
    const mine = chartDataOf('here', here, undefined)!;
    expect(mine.steps).toEqual([{ nodeId: 'this node', points: [{ t: 0, step: 4000 }] }]);
    expect(mine.leases).toEqual([{ t: 5, size: 10_000_000, nodeId: 'this node' }]);
    expect(chartDataOf('fleet', here, undefined)).toBeNull();
    const all = chartDataOf('fleet', here, fleet)!;
    expect(all.rate).toBe(fleet.rate);
    expect(all.steps.map((l) => l.nodeId)).toEqual(['a', 'b']);
    expect(all.missing).toEqual([{ nodeId: 'c', why: 'gone' }]);
    expect(chartDataOf('node:b', here, fleet)!.rate).toEqual([{ t: 0, ids: 3 }]);
    expect(chartDataOf('node:c', here, fleet)).toMatchObject({ rate: [], missing: [{ nodeId: 'c', why: 'gone' }] });
  });

  it('the buffer chart: per up node, the current segment’s rest and the loaded next one', () => {
    const n = (nodeId: string, state: 'up' | 'gone', buffered: number, current: number | null) => ({
      nodeId,
      address: 'x',
      state,
      buffered,
      current,
      step: 100,
      ratePerSec: 0,
      next: 'ready' as const,
      runwaySeconds: null,
    });
    expect(bufferBars([n('a', 'up', 150, 50), n('b', 'gone', 80, 80), n('old', 'up', 70, null)])).toEqual([
      { nodeId: 'a', current: 50, next: 100 },
      { nodeId: 'old', current: 70, next: 0 },
    ]);
  });

  it('a bucket without a record is a gap, not a zero', () => {
    expect(
      rateSeries(
        [
          { t: 5_000, ids: 50 },
          { t: 10_000, ids: null },
        ],
        [0, 20_000],
      ),
    ).toEqual([
      { t: 0, perSec: null },
      { t: 5_000, perSec: 10 },
      { t: 10_000, perSec: null },
      { t: 15_000, perSec: null },
    ]);
  });
});
