import { describe, expect, it } from 'vitest';
import { type TimedAnswer, checkOrder } from '../../tools/harness/orderCheck';

const answer = (sentAt: number, receivedAt: number, ...ids: number[]): TimedAnswer => ({
  sentAt,
  receivedAt,
  ids: ids.map(BigInt),
});

describe('the real-time order check', () => {
  it('passes answers that increase after every answer received before they were sent', () => {
    const report = checkOrder([answer(0, 2, 10), answer(3, 4, 11, 12), answer(5, 9, 20), answer(6, 7, 13)]);
    expect(report).toMatchObject({ answers: 4, ids: 5, violations: 0, duplicates: 0 });
  });

  it('lets overlapping requests come back in any order', () => {
    // B was sent before A came back: nothing is promised between them.
    expect(checkOrder([answer(0, 10, 50), answer(5, 6, 40)]).violations).toBe(0);
  });

  it('catches an answer smaller than one received before it was sent (its teeth)', () => {
    const report = checkOrder([answer(0, 2, 100), answer(3, 4, 99)]);
    expect(report.violations).toBe(1);
    expect(report.examples[0]).toMatchObject({ smallest: 99n, largestBefore: 100n });
  });

  it('catches a batch whose smallest ID is not above the last answer, even when its largest is', () => {
    expect(checkOrder([answer(0, 1, 5, 6, 7), answer(2, 3, 7, 8, 9)]).violations).toBe(1);
  });

  it('judges against the largest ID of all earlier answers, not only the latest', () => {
    expect(checkOrder([answer(0, 1, 100), answer(0, 2, 50), answer(3, 4, 60)]).violations).toBe(1);
  });

  it('counts an ID given twice', () => {
    expect(checkOrder([answer(0, 1, 1, 2), answer(0, 1, 2, 3)]).duplicates).toBe(1);
  });

  it('compares IDs above 2^53 exactly', () => {
    const big = 2n ** 62n;
    const report = checkOrder([
      { sentAt: 0, receivedAt: 1, ids: [big + 1n] },
      { sentAt: 2, receivedAt: 3, ids: [big] },
    ]);
    expect(report.violations).toBe(1);
  });
});
