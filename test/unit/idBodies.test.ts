/**
 * The batch answer written as bytes (lib/http/idBodies.ts on lib/asciiWriter.ts) says exactly what JSON.stringify of
 * the IDs would: runs below and across 10^9 (where an ID's prefix above the low nine digits changes), runs above
 * 2^53 given as a bigint base and an offset, across a 10^9 boundary there too, several runs in one answer, and the
 * largest ID there is.
 */
import { describe, expect, it } from 'vitest';
import { batch } from '@/lib/http/idBodies';
import { type IdRanges, expandRanges } from '@/lib/segment/idRanges';

function ranges(runs: Array<[bigint | null, number, number]>): IdRanges {
  const wide = runs.some(([base]) => base !== null);
  return {
    bounds: runs.flatMap(([, first, last]) => [first, last]),
    count: runs.reduce((n, [, first, last]) => n + (last - first + 1), 0),
    bases: wide ? runs.map(([base]) => base) : null,
  };
}

describe('batch answers written as bytes', () => {
  it.each([
    ['one ID', [[null, 1, 1]]],
    [
      'small IDs, several runs',
      [
        [null, 1, 12],
        [null, 95, 130],
        [null, 9_999, 10_001],
      ],
    ],
    ['across 10^9', [[null, 999_999_990, 1_000_000_012]]],
    [
      'from 10^9 and near 2^53',
      [
        [null, 1_000_000_000, 1_000_000_003],
        [null, 2 ** 53 - 5, 2 ** 53 - 1],
      ],
    ],
    ['a run of nines rolling over several digits', [[null, 99_999_999_995, 100_000_000_004]]],
    ['above 2^53', [[100_000_000_000_000_000n, 1, 40]]],
    ['above 2^53, across 10^9', [[99_999_999_999_999_000n, 990, 1_010]]],
    [
      'narrow and wide in one answer',
      [
        [null, 7, 9],
        [2n ** 60n, 0, 3],
      ],
    ],
    ['up to 2^63 − 1', [[2n ** 63n - 11n, 0, 10]]],
  ] as Array<[string, Array<[bigint | null, number, number]>]>)('%s', (_name, runs) => {
    const r = ranges(runs);
    const expected = JSON.stringify({ tag: 'orders', ids: expandRanges(r).map(String) });
    expect(batch('orders', r).body).toBe(expected);
  });

  it('10,000 IDs in one answer, and the writer reused by the next', () => {
    const big = ranges([[null, 123_456_789, 123_466_788]]);
    const body = batch('t', big).body;
    expect(JSON.parse(body).ids).toHaveLength(10_000);
    expect(body).toBe(JSON.stringify({ tag: 't', ids: expandRanges(big).map(String) }));
    expect(batch('t', ranges([[null, 5, 6]])).body).toBe('{"tag":"t","ids":["5","6"]}');
  });
});
