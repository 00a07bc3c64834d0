/**
 * NIST SP 800-38G FF1 as the standard writes it: any radix, any tweak, numerals as digit arrays. It is the
 * reference the fast binary form (binaryFf1.ts) is tested against, and it runs the NIST sample vectors.
 */
import { createCipheriv } from 'node:crypto';

/** The standard's rounds; `rounds` is a parameter only so a control run can show a weaker cipher failing. */
export const FF1_ROUNDS = 10;

export interface Ff1Options {
  radix: number;
  /** A test's lever: anything but 10 is not FF1. */
  rounds?: number;
}

/** AES in ECB on one 16-byte block at a time: CIPH_K of the standard, from node:crypto (no cipher of our own). */
export function aesBlock(key: Uint8Array): (block: Uint8Array) => Buffer {
  if (![16, 24, 32].includes(key.length)) throw new Error('An AES key is 16, 24 or 32 bytes.');
  const cipher = createCipheriv(`aes-${key.length * 8}-ecb`, key, null).setAutoPadding(false);
  return (block) => cipher.update(block);
}

function num(digits: readonly number[], radix: number): bigint {
  let x = 0n;
  const r = BigInt(radix);
  for (const d of digits) x = x * r + BigInt(d);
  return x;
}

function str(x: bigint, radix: number, m: number): number[] {
  const out = new Array<number>(m);
  const r = BigInt(radix);
  for (let i = m - 1; i >= 0; i--) {
    out[i] = Number(x % r);
    x /= r;
  }
  return out;
}

function bytesOf(x: bigint, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = length - 1; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/** FF1.Encrypt (decrypt: true, FF1.Decrypt) of the numeral string `x` under `tweak`. */
export function ff1(
  key: Uint8Array,
  tweak: Uint8Array,
  x: readonly number[],
  { radix, rounds = FF1_ROUNDS }: Ff1Options,
  decrypt = false,
): number[] {
  const ciph = aesBlock(key);
  const n = x.length;
  const t = tweak.length;
  const u = Math.floor(n / 2);
  const v = n - u;
  const b = Math.ceil(Math.ceil(v * Math.log2(radix) - 1e-9) / 8);
  const d = 4 * Math.ceil(b / 4) + 4;
  const P = Buffer.from([
    1,
    2,
    1,
    (radix >> 16) & 0xff,
    (radix >> 8) & 0xff,
    radix & 0xff,
    10,
    u % 256,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);
  P.writeUInt32BE(n, 8);
  P.writeUInt32BE(t, 12);
  const prf = (data: Buffer): Buffer => {
    let y: Buffer = Buffer.alloc(16);
    for (let j = 0; j < data.length; j += 16) {
      const block = Buffer.alloc(16);
      for (let k = 0; k < 16; k++) block[k] = (y[k] as number) ^ (data[j + k] as number);
      y = ciph(block);
    }
    return y;
  };
  const yOf = (i: number, side: readonly number[]): bigint => {
    const pad = (((-t - b - 1) % 16) + 16) % 16;
    const Q = Buffer.concat([Buffer.from(tweak), Buffer.alloc(pad), Buffer.from([i]), bytesOf(num(side, radix), b)]);
    const R = prf(Buffer.concat([P, Q]));
    const blocks = [R];
    for (let j = 1; j < Math.ceil(d / 16); j++) blocks.push(ciph(xorCounter(R, j)));
    return BigInt('0x' + Buffer.concat(blocks).subarray(0, d).toString('hex'));
  };
  let A = x.slice(0, u);
  let B = x.slice(u);
  if (!decrypt) {
    for (let i = 0; i < rounds; i++) {
      const m = i % 2 === 0 ? u : v;
      const c = (num(A, radix) + yOf(i, B)) % BigInt(radix) ** BigInt(m);
      A = B;
      B = str(c, radix, m);
    }
  } else {
    for (let i = rounds - 1; i >= 0; i--) {
      const m = i % 2 === 0 ? u : v;
      const mod = BigInt(radix) ** BigInt(m);
      const c = (((num(B, radix) - yOf(i, A)) % mod) + mod) % mod;
      B = A;
      A = str(c, radix, m);
    }
  }
  return [...A, ...B];
}

/** R ⊕ [j]^16, the standard's step for output longer than one block. */
function xorCounter(R: Buffer, j: number): Buffer {
  const out = Buffer.from(R);
  const counter = bytesOf(BigInt(j), 16);
  for (let k = 0; k < 16; k++) out[k] = (out[k] as number) ^ (counter[k] as number);
  return out;
}
