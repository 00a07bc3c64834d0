/** IDs given as FF1 halves written in decimal without a bigint (a batch prints thousands of them). */
import { ascii } from '../asciiWriter';

const E9 = 1_000_000_000;

/**
 * a·2^32 + b (a < 2^31, b < 2^32) as its decimal prefix above 10^9 and its low 9 digits, exactly: a split at 2^16,
 * each part's product with 2^48 and 2^32 written as multiples of 10^9 plus a rest, every intermediate below 2^53.
 * The high part is below 9.3·10^9; the low one a small integer.
 */
function split(a: number, b: number, into: Float64Array): void {
  const a1 = Math.floor(a / 65536);
  const a0 = a - a1 * 65536;
  // 2^48 = 281474·10^9 + 976710656; 2^32 = 4·10^9 + 294967296.
  const low = a1 * 976710656 + a0 * 294967296 + b;
  // Floor division, not %: a double's % is a call to fmod, ten times slower.
  const carry = Math.floor(low / E9);
  into[0] = a1 * 281474 + a0 * 4 + carry;
  into[1] = low - carry * E9;
}

/** split()'s answer, reused: one batch at a time on this thread. */
const parts = new Float64Array(2);

export function decimal63(a: number, b: number): string {
  split(a, b, parts);
  const high = parts[0] as number;
  const rest = parts[1] as number;
  if (high === 0) return String(rest);
  const r = String(rest);
  return high + '000000000'.slice(r.length) + r;
}

/**
 * Writes the decimal IDs a[k]·2^32 + b[k] (k < n) joined by `sep` between `open` and `close`, as one flat string —
 * bytes first, no string per ID (a thousand strings and their joins cost more than the permutation). `other(k)` gives
 * the text of an entry that is not its halves' value (cycle walking's rare step), or null. Everything is ASCII.
 */
export function decimalList(
  open: string,
  sep: string,
  close: string,
  A: Uint32Array,
  B: Uint32Array,
  n: number,
  other: (k: number) => string | null,
): string {
  // 19 digits at most per ID.
  const w = ascii.start(open.length + close.length + n * (19 + sep.length));
  const sepBytes = Buffer.from(sep, 'latin1');
  w.text(open);
  for (let k = 0; k < n; k++) {
    if (k > 0) w.bytes(sepBytes);
    const a = A[k] as number;
    const b = B[k] as number;
    const text = a === 0 && b === 0 ? other(k) : null;
    if (text !== null) {
      w.text(text);
      continue;
    }
    split(a, b, parts);
    const high = parts[0] as number;
    const rest = parts[1] as number;
    if (high === 0) w.number(rest);
    else {
      w.number(high);
      w.nine(rest);
    }
  }
  w.text(close);
  return w.done();
}
