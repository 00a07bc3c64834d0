import { describe, expect, it } from 'vitest';
import { fleetTag, runwaySeconds, stepNeeded } from '../../lib/fleet/runway';
import type { NodeTagState } from '../../lib/fleet/types';

const tag = (buffered: number, ratePerSec: number): NodeTagState => ({
  buffered,
  step: 1000,
  ratePerSec,
  next: 'ready',
  issued: 0,
  current: buffered,
});

describe('runway', () => {
  it('is the buffer over the rate, and null when idle', () => {
    expect(runwaySeconds(6000, 10)).toBe(600);
    expect(runwaySeconds(6000, 0)).toBeNull();
  });

  it('asks for the step that outlasts the outage, only when the current one does not', () => {
    expect(stepNeeded(1000, 100, 120)).toBe(12_000);
    expect(stepNeeded(12_000, 100, 120)).toBeNull();
    expect(stepNeeded(10, 0, 120)).toBeNull();
  });

  it('sums the up nodes and takes the shortest runway', () => {
    const fleet = fleetTag(
      [
        { state: 'up', tags: { a: tag(1000, 10), b: tag(5, 0) } },
        { state: 'up', tags: { a: tag(100, 10) } },
        { state: 'gone', tags: { a: tag(1_000_000, 1) } },
        { state: 'stopped', tags: { a: tag(7, 7) } },
      ],
      'a',
    );
    expect(fleet).toEqual({ nodesServing: 2, ratePerSec: 20, buffered: 1100, runwaySeconds: 10 });
    expect(fleetTag([{ state: 'up', tags: { b: tag(5, 0) } }], 'b')).toEqual({
      nodesServing: 1,
      ratePerSec: 0,
      buffered: 5,
      runwaySeconds: null,
    });
  });
});
