/**
 * The renderer every ID route of an opaque tag goes through: single IDs from its window and batches agree with FF1
 * itself, across a window's edge, with regions (the region's ID is permuted), above 2^53 (wide runs), and an
 * opaque-js-safe tag stops at 2^53 − 1 rather than wrap.
 */
import { describe, expect, it } from 'vitest';
import { OpaqueKey } from '@/lib/opaque/key';
import { OpaqueRenderer } from '@/lib/opaque/opaqueRenderer';
import { newRanges, appendRun } from '@/lib/segment/idRanges';
import { regionStride } from '@/lib/segment/regionIds';
import { codeOf } from '../support/outcomes';

const key = new OpaqueKey(Buffer.from('renderer-unit-key-0123456789abcdef-xyz'));
const renderer = (bits: 63 | 53 = 63) =>
  new OpaqueRenderer('t', key.cipher(bits, 't'), bits === 63 ? 'opaque' : 'opaque-js-safe', key.id);
const ff1 = (x: bigint, bits: 63 | 53 = 63) => key.cipher(bits, 't').encrypt(x).toString();

describe('OpaqueRenderer', () => {
  it('single IDs (windowed) and batches are FF1 of the engine IDs, across window edges and out of order', () => {
    const r = renderer();
    const positions = [1, 2, 3, 63, 64, 65, 66, 200, 5, 129, 128, 1_000_000];
    for (const p of positions) expect(r.one(p, null)).toBe(ff1(BigInt(p)));
    const ranges = newRanges();
    appendRun(ranges, 10, 80, null);
    appendRun(ranges, 500, 520, null);
    const expected = [
      ...Array.from({ length: 71 }, (_, i) => 10 + i),
      ...Array.from({ length: 21 }, (_, i) => 500 + i),
    ];
    expect(r.many(ranges, null)).toEqual(expected.map((p) => ff1(BigInt(p))));
  });

  it('with regions the region’s ID n × R + r is permuted, single and batch', () => {
    const r = renderer();
    const stride = regionStride(1, 3)!;
    for (const p of [1, 2, 64, 65]) expect(r.one(p, stride)).toBe(ff1(BigInt(p * 3 + 1)));
    const ranges = newRanges();
    appendRun(ranges, 7, 9, null);
    expect(r.many(ranges, stride)).toEqual([22n, 25n, 28n].map((x) => ff1(x)));
  });

  it('above 2^53: a wide run (a base and offsets) is permuted exactly', () => {
    const r = renderer();
    const base = 2n ** 56n;
    const ranges = newRanges();
    appendRun(ranges, 5, 7, base);
    expect(r.many(ranges, null)).toEqual([base + 5n, base + 6n, base + 7n].map((x) => ff1(x)));
    expect(r.one(base + 9n, null)).toBe(ff1(base + 9n));
    expect(r.reverse(BigInt(ff1(base + 9n)))).toBe(base + 9n);
  });

  it('opaque-js-safe: IDs stay at or below 2^53 − 1, and the tag stops there', async () => {
    const r = renderer(53);
    const ranges = newRanges();
    appendRun(ranges, 1, 500, null);
    const ids = r.many(ranges, null).map(BigInt);
    expect(ids.every((id) => id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
    expect(r.one(Number.MAX_SAFE_INTEGER, null)).toBe(ff1(BigInt(Number.MAX_SAFE_INTEGER), 53));
    expect(await codeOf(() => r.one(2n ** 53n, null))).toBe('id_space_exhausted');
    expect(await codeOf(() => r.reverse(2n ** 53n))).toBe('invalid_id');
  });
});
