import { describe, expect, it } from 'vitest';
import { MAX_STEP, SEGMENT_DURATION_MS, nextStep } from '@/lib/segment/step';

const MIN = 60_000;

describe('nextStep (Leaf 15/30-minute rule)', () => {
  it.each([
    // [step, minStep, minutes since last load, expected]
    [1000, 1000, 0, 2000],
    [1000, 1000, 14.99, 2000],
    [1000, 1000, 15, 1000],
    [1000, 1000, 29.99, 1000],
    [4000, 1000, 30, 2000],
    [4000, 1000, 120, 2000],
    [1000, 1000, 31, 1000], // halving would go below the DB step
    [1500, 1000, 31, 1000], // floor(750) clamps to the DB step
    [600_000, 1000, 1, MAX_STEP], // doubling is capped
    [MAX_STEP, 1000, 1, MAX_STEP],
    [1000, 5000, 20, 5000], // operator raised the DB step: honoured at once
    [1000, 5000, 1, 5000],
    [1, 1, 0, 2],
    [3, 1, 40, 1],
  ])('step %i, minStep %i, %f min → %i', (step, minStep, minutes, expected) => {
    expect(nextStep({ step, minStep, sinceLastLoadMs: minutes * MIN })).toBe(expected);
  });

  it('uses 15 minutes as the segment duration', () => {
    expect(SEGMENT_DURATION_MS).toBe(15 * MIN);
  });

  it('keeps a DB step above the cap rather than shrinking it', () => {
    expect(nextStep({ step: 2_000_000, minStep: 2_000_000, sinceLastLoadMs: 0 })).toBe(2_000_000);
  });
});
