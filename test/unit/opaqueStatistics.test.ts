/**
 * What an opaque tag's IDs reveal, measured over 1,000,000 IDs issued in order: no rank correlation with the issue
 * order, balanced bits with no runs structure, and no predictor that has seen 1,000 consecutive (sequence, ID) pairs
 * does better than chance on the next. Each measure is shown catching a weak transformation (the controls).
 * Why it must hold: FF1 is a pseudorandom permutation under the key (docs/design.md#opaque-tags).
 */
import { describe, expect, it } from 'vitest';
import { type BinaryFf1 } from '@/lib/opaque/binaryFf1';
import { OpaqueKey } from '@/lib/opaque/key';

const N = 1_000_000;
const key = new OpaqueKey(Buffer.from('statistics-of-opaque-ids-0123456789abcdef'));
const cipher = key.cipher(63, 'orders');

/** Outputs of a transformation of the IDs 1..n, in issue order, as their halves (high 31 bits, low 32). */
interface Outputs {
  hi: Uint32Array;
  lo: Uint32Array;
}

function permuted(f: BinaryFf1, n: number, first = 1): Outputs {
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let k = 0; k < n; k++) lo[k] = first + k;
  f.encryptHalves(hi, lo, n);
  return { hi, lo };
}

/** The identity (a plain tag) and x xor a constant: what the measures must catch. */
function plain(n: number): Outputs {
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let k = 0; k < n; k++) lo[k] = k + 1;
  return { hi, lo };
}
function xorred(n: number): Outputs {
  const hi = new Uint32Array(n).fill(0x5a5a5a5a >>> 1);
  const lo = new Uint32Array(n);
  for (let k = 0; k < n; k++) lo[k] = ((k + 1) ^ 0xc3a5c3a5) >>> 0;
  return { hi, lo };
}

const value = (o: Outputs, k: number) => (o.hi[k] as number) * 2 ** 32 + (o.lo[k] as number);
const bit = (o: Outputs, k: number, b: number) =>
  b < 32 ? ((o.lo[k] as number) >>> b) & 1 : ((o.hi[k] as number) >>> (b - 32)) & 1;

/** Spearman's ρ between issue order and value (ties improbable at 63 bits; doubles order them well enough). */
function spearman(o: Outputs, n: number): number {
  const values = new Float64Array(n);
  for (let k = 0; k < n; k++) values[k] = value(o, k);
  const sorted = Float64Array.from(values).sort();
  let d2 = 0;
  for (let k = 0; k < n; k++) {
    let lo = 0;
    let hi = n - 1;
    const v = values[k] as number;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as number) < v) lo = mid + 1;
      else hi = mid;
    }
    const d = lo - k;
    d2 += d * d;
  }
  return 1 - (6 * d2) / (n * (n * n - 1));
}

/** The largest |z| of the ones' count over the 63 bit positions. */
function worstBitBias(o: Outputs, n: number): number {
  let worst = 0;
  for (let b = 0; b < 63; b++) {
    let ones = 0;
    for (let k = 0; k < n; k++) ones += bit(o, k, b);
    worst = Math.max(worst, Math.abs(ones - n / 2) / (Math.sqrt(n) / 2));
  }
  return worst;
}

/** NIST SP 800-22's runs test over the IDs' bits in issue order: its |z|. */
function runsZ(o: Outputs, n: number): number {
  let ones = 0;
  let runs = 1;
  let prev = -1;
  for (let k = 0; k < n; k++) {
    for (let b = 0; b < 63; b++) {
      const x = bit(o, k, b);
      ones += x;
      if (prev !== -1 && x !== prev) runs++;
      prev = x;
    }
  }
  const bits = n * 63;
  const pi = ones / bits;
  return Math.abs(runs - 2 * bits * pi * (1 - pi)) / (2 * Math.sqrt(2 * bits) * pi * (1 - pi));
}

/**
 * Predictors that see a window of 1,000 consecutive (sequence, ID) pairs and guess the next ID: the share of its 63
 * bits each gets right, over `windows` windows. Chance is 0.5.
 */
function predictions(o: Outputs, windows: number): Record<string, number> {
  const guessers: Record<string, (w: number) => (b: number) => number> = {
    // The next as the last plus the last step.
    'linear extrapolation': (w) => {
      const last = value(o, w + 999);
      const next = last + (last - value(o, w + 998));
      return (b) => Math.floor(Math.abs(next) / 2 ** b) % 2;
    },
    // Each bit as most of the window had it.
    'per-bit majority': (w) => (b) => {
      let ones = 0;
      for (let k = w; k < w + 1000; k++) ones += bit(o, k, b);
      return ones >= 500 ? 1 : 0;
    },
    // The last ID with the bits where the sequence numbers differ flipped (exact for x xor K).
    'xor difference': (w) => (b) => {
      const flip = b < 32 ? (((w + 1000 + 1) ^ (w + 999 + 1)) >>> b) & 1 : 0;
      return bit(o, w + 999, b) ^ flip;
    },
  };
  const out: Record<string, number> = {};
  for (const [name, guess] of Object.entries(guessers)) {
    let right = 0;
    for (let i = 0; i < windows; i++) {
      const w = i * 997;
      const g = guess(w);
      for (let b = 0; b < 63; b++) if (g(b) === bit(o, w + 1000, b)) right++;
    }
    out[name] = right / (windows * 63);
  }
  return out;
}

describe('what opaque IDs reveal (1,000,000 issued in order)', () => {
  const ids = permuted(cipher, N);

  it("Spearman's ρ between issue order and value is below 0.01 in size; a plain or xor'ed tag's is not", () => {
    expect(Math.abs(spearman(ids, N))).toBeLessThan(0.01);
    expect(spearman(plain(100_000), 100_000)).toBeGreaterThan(0.99);
    // Also after the ID space's first 2^32: the same property at an offset.
    expect(Math.abs(spearman(permuted(cipher, 200_000, 3_000_000_000), 200_000))).toBeLessThan(0.02);
  });

  it('every bit position is balanced (|z| < 5 for all 63), and the bit stream passes the runs test (|z| < 5)', () => {
    expect(worstBitBias(ids, N)).toBeLessThan(5);
    expect(runsZ(ids, 200_000)).toBeLessThan(5);
    // Controls: the plain sequence's high bits are all 0, and its runs are far from random.
    expect(worstBitBias(plain(100_000), 100_000)).toBeGreaterThan(100);
    expect(runsZ(plain(100_000), 100_000)).toBeGreaterThan(100);
  });

  it('no predictor that saw 1,000 consecutive pairs guesses the next ID’s bits better than chance', () => {
    // 900 windows × 63 bits: chance is 0.5 with σ ≈ 0.0021; 0.012 is over 5σ.
    for (const [name, share] of Object.entries(predictions(ids, 900))) {
      expect(Math.abs(share - 0.5), name).toBeLessThan(0.012);
    }
    // Controls: each weak transformation is predicted by one of them.
    expect(predictions(plain(900_000), 900)['linear extrapolation']).toBe(1);
    expect(predictions(xorred(900_000), 900)['xor difference']).toBe(1);
  });
});
