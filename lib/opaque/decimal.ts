/** IDs given as FF1 halves written in decimal without a bigint (a batch prints thousands of them). */

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

/** "0000" … "9999" as ASCII: four digits per division. */
const QUADS = new Uint8Array(40_000);
for (let i = 0; i < 10_000; i++) {
  QUADS[4 * i] = 48 + Math.floor(i / 1000);
  QUADS[4 * i + 1] = 48 + (Math.floor(i / 100) % 10);
  QUADS[4 * i + 2] = 48 + (Math.floor(i / 10) % 10);
  QUADS[4 * i + 3] = 48 + (i % 10);
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
  const size = open.length + close.length + n * (19 + sep.length);
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, 2 * scratch.length));
  const buf = scratch;
  const sepBytes = Buffer.from(sep, 'latin1');
  const sepLength = sepBytes.length;
  let pos = buf.write(open, 0, 'latin1');
  for (let k = 0; k < n; k++) {
    if (k > 0) for (let i = 0; i < sepLength; i++) buf[pos++] = sepBytes[i] as number;
    const a = A[k] as number;
    const b = B[k] as number;
    const text = a === 0 && b === 0 ? other(k) : null;
    if (text !== null) {
      pos += buf.write(text, pos, 'latin1');
      continue;
    }
    split(a, b, parts);
    const high = parts[0] as number;
    const rest = parts[1] as number;
    if (high === 0) pos = writeNumber(buf, pos, rest);
    else pos = writeNine(buf, writeNumber(buf, pos, high), rest);
  }
  pos += buf.write(close, pos, 'latin1');
  return buf.toString('latin1', 0, pos);
}

let scratch = Buffer.allocUnsafe(32 * 1024);

/** x (an integer below 10^10) in as many digits as it has. */
function writeNumber(buf: Buffer, pos: number, x: number): number {
  const digits =
    x < 1e5
      ? x < 10
        ? 1
        : x < 100
          ? 2
          : x < 1000
            ? 3
            : x < 1e4
              ? 4
              : 5
      : x < 1e7
        ? x < 1e6
          ? 6
          : 7
        : x < 1e8
          ? 8
          : x < 1e9
            ? 9
            : 10;
  let end = pos + digits;
  while (end - pos > 4) {
    const q = Math.floor(x / 10_000);
    writeQuad(buf, end - 4, x - q * 10_000);
    x = q;
    end -= 4;
  }
  // The leading 1 to 4 digits: the quad's last ones.
  const from = 4 * x + 4 - (end - pos);
  for (let i = pos; i < end; i++) buf[i] = QUADS[from + i - pos] as number;
  return pos + digits;
}

/** x (below 10^9) in exactly nine digits, zeros first. */
function writeNine(buf: Buffer, pos: number, x: number): number {
  const q = Math.floor(x / 10_000);
  writeQuad(buf, pos + 5, x - q * 10_000);
  const top = Math.floor(q / 10_000);
  writeQuad(buf, pos + 1, q - top * 10_000);
  buf[pos] = 48 + top;
  return pos + 9;
}

function writeQuad(buf: Buffer, pos: number, x: number): void {
  const i = 4 * x;
  buf[pos] = QUADS[i] as number;
  buf[pos + 1] = QUADS[i + 1] as number;
  buf[pos + 2] = QUADS[i + 2] as number;
  buf[pos + 3] = QUADS[i + 3] as number;
}
