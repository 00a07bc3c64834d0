/**
 * An answer written as ASCII bytes into one reused buffer and read back as one flat string: a batch of IDs without a
 * string per ID and without a join (consecutive IDs written so cost about half what their concatenation does).
 * One answer at a time per thread: `start` … `done` run synchronously.
 */

/** "0000" … "9999" as ASCII: four digits per division. */
const QUADS = new Uint8Array(40_000);
for (let i = 0; i < 10_000; i++) {
  QUADS[4 * i] = 48 + Math.floor(i / 1000);
  QUADS[4 * i + 1] = 48 + (Math.floor(i / 100) % 10);
  QUADS[4 * i + 2] = 48 + (Math.floor(i / 10) % 10);
  QUADS[4 * i + 3] = 48 + (i % 10);
}

export class AsciiWriter {
  private buf = Buffer.allocUnsafe(32 * 1024);
  pos = 0;

  /** Room for at least `bytes`; the answer so far is dropped. */
  start(bytes: number): this {
    if (this.buf.length < bytes) this.buf = Buffer.allocUnsafe(Math.max(bytes, 2 * this.buf.length));
    this.pos = 0;
    return this;
  }

  /** ASCII text (a tag name is ASCII by its grammar; anything else would be written as Latin-1). */
  text(s: string): void {
    this.pos += this.buf.write(s, this.pos, 'latin1');
  }

  bytes(b: Uint8Array): void {
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < b.length; i++) buf[pos++] = b[i] as number;
    this.pos = pos;
  }

  /**
   * `,` unless first, then `"` prefix·10^9 + low `"`: one ID of a run of consecutive ones, its digits above the low
   * nine given as bytes (null: none, and low in as many digits as it has).
   */
  quotedId(first: boolean, prefix: Uint8Array | null, low: number): void {
    if (!first) this.buf[this.pos++] = 44;
    this.buf[this.pos++] = 34;
    if (prefix === null) this.number(low);
    else {
      const buf = this.buf;
      let pos = this.pos;
      for (let i = 0; i < prefix.length; i++) buf[pos++] = prefix[i] as number;
      this.pos = pos;
      this.nine(low);
    }
    this.buf[this.pos++] = 34;
  }

  /** x (a whole number below 10^10) in as many digits as it has. */
  number(x: number): void {
    const digits = x < 1e5 ? (x < 100 ? (x < 10 ? 1 : 2) : x < 1e3 ? 3 : x < 1e4 ? 4 : 5) : digitsAbove5(x);
    const buf = this.buf;
    const start = this.pos;
    let end = start + digits;
    while (end - start > 4) {
      const q = Math.floor(x / 10_000);
      quad(buf, end - 4, x - q * 10_000);
      x = q;
      end -= 4;
    }
    // The leading 1 to 4 digits: the last ones of x's quad.
    const from = 4 * x + 4 - (end - start);
    for (let i = start; i < end; i++) buf[i] = QUADS[from + i - start] as number;
    this.pos = start + digits;
  }

  /** x (below 10^9) in exactly nine digits, zeros first. Floor division, not %: a double's % is a call to fmod. */
  nine(x: number): void {
    const q = Math.floor(x / 10_000);
    const top = Math.floor(q / 10_000);
    const buf = this.buf;
    const pos = this.pos;
    buf[pos] = 48 + top;
    quad(buf, pos + 1, q - top * 10_000);
    quad(buf, pos + 5, x - q * 10_000);
    this.pos = pos + 9;
  }

  /** The answer written since `start`, as one flat string. */
  done(): string {
    return this.buf.toString('latin1', 0, this.pos);
  }
}

function digitsAbove5(x: number): number {
  return x < 1e7 ? (x < 1e6 ? 6 : 7) : x < 1e8 ? 8 : x < 1e9 ? 9 : 10;
}

function quad(buf: Buffer, pos: number, x: number): void {
  const i = 4 * x;
  buf[pos] = QUADS[i] as number;
  buf[pos + 1] = QUADS[i + 1] as number;
  buf[pos + 2] = QUADS[i + 2] as number;
  buf[pos + 3] = QUADS[i + 3] as number;
}

/** The one writer of this thread. */
export const ascii = new AsciiWriter();
