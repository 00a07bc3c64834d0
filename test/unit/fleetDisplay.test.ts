import { describe, expect, it } from 'vitest';
import { showDuration, showRunway, showUptime, runwayLow, stepAdvice } from '@/components/console/display';
import { ratePointsOf } from '@/components/console/RateSource';
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

  it('the chart source picks this node, the fleet (every node’s buckets) or one node', () => {
    const here = [{ t: 0, ids: 1 }];
    const fleet = [
      { nodeId: 'a', points: [{ t: 0, ids: 2 }] },
      { nodeId: 'b', points: [{ t: 0, ids: 3 }] },
    ];
    expect(ratePointsOf('here', here, fleet)).toBe(here);
    expect(ratePointsOf('fleet', here, fleet).reduce((s, p) => s + p.ids, 0)).toBe(5);
    expect(ratePointsOf('node:b', here, fleet)).toEqual([{ t: 0, ids: 3 }]);
    expect(ratePointsOf('node:gone', here, fleet)).toEqual([]);
    expect(ratePointsOf('fleet', here, null)).toBe(here);
  });
});
