/** An ID given as FF1 halves written in decimal without a bigint (a batch prints thousands of them). */

const E9 = 1_000_000_000;

/**
 * a·2^32 + b (a < 2^31, b < 2^32) in decimal, exactly: a split at 2^16, each part's product with 2^48 and 2^32
 * written as multiples of 10^9 plus a rest, every intermediate below 2^53.
 */
export function decimal63(a: number, b: number): string {
  const a1 = Math.floor(a / 65536);
  const a0 = a - a1 * 65536;
  // 2^48 = 281474·10^9 + 976710656; 2^32 = 4·10^9 + 294967296.
  const low = a1 * 976710656 + a0 * 294967296 + b;
  const rest = low % E9;
  const high = a1 * 281474 + a0 * 4 + (low - rest) / E9;
  if (high === 0) return String(rest);
  const r = String(rest);
  return high + '000000000'.slice(r.length) + r;
}
