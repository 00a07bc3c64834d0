/**
 * FF1 over radix 2 and `bits` binary digits (63, or 53 for IDs that stay safe JS numbers): a keyed permutation of
 * [0, 2^bits), the same function as the reference (ff1.ts) computes, specialised so an ID costs ten AES blocks and
 * a batch costs ten AES calls, whatever its size. Zero is kept out of the outputs by cycle walking (design.md).
 */
import { createCipheriv } from 'node:crypto';
import { FF1_ROUNDS } from './ff1';

export type OpaqueBits = 63 | 53;

export class BinaryFf1 {
  readonly bits: OpaqueBits;
  /** The halves: A has u binary digits, B has v (FF1's split, u = ⌊n/2⌋). */
  private readonly u: number;
  private readonly v: number;
  private readonly modU: number;
  private readonly modV: number;
  private readonly cipher: ReturnType<typeof createCipheriv>;
  /**
   * Each round's constant first 12 bytes of the PRF's last block, already xor'ed into the CBC-MAC state before it:
   * the tweak's tail and its zero padding, then [i].
   */
  private readonly heads: Buffer[];
  /** That state's last four bytes, which the block's NUM(B) is xor'ed into. */
  private readonly tail: number;
  private readonly rounds: number;
  /** Each round's constant 12 bytes as three native-order words: only the third differs between rounds ([i]). */
  private readonly headWords: Uint32Array[];
  private blocks = new Uint32Array(0);

  /** `tweak`: FF1's tweak (an opaque tag's name), so each tag has its own permutation under one key. */
  constructor(key: Uint8Array, bits: OpaqueBits, tweak: Uint8Array = new Uint8Array(0), rounds = FF1_ROUNDS) {
    this.bits = bits;
    this.u = Math.floor(bits / 2);
    this.v = bits - this.u;
    this.modU = 2 ** this.u;
    this.modV = 2 ** this.v;
    this.rounds = rounds;
    this.cipher = createCipheriv(`aes-${key.length * 8}-ecb`, key, null).setAutoPadding(false);
    // P = [1][2][1][radix]^3[10][u mod 256][n]^4[t]^4 at radix 2; b = 4 bytes (v ≤ 32), so Q = T || [0]^pad ||
    // [i] || NUM(B)^4 with pad = (−t − 5) mod 16. Every block of P || Q but the last is the same in every round and
    // for every ID: the CBC-MAC state before the last block is computed once.
    const t = tweak.length;
    const P = Buffer.from([1, 2, 1, 0, 0, 2, 10, this.u, 0, 0, 0, bits, 0, 0, 0, 0]);
    P.writeUInt32BE(t, 12);
    const pad = (((-t - 5) % 16) + 16) % 16;
    const constant = Buffer.concat([Buffer.from(tweak), Buffer.alloc(pad)]); // Q without [i] || NUM(B)
    let state = this.cipher.update(P);
    const whole = constant.length - 11; // the last block holds the final 11 constant bytes
    for (let j = 0; j < whole; j += 16) state = this.cipher.update(xor16(state, constant.subarray(j, j + 16)));
    const last11 = constant.subarray(whole);
    this.tail = state.readUInt32BE(12);
    this.heads = [];
    for (let i = 0; i < rounds; i++) {
      const head = Buffer.alloc(12);
      for (let k = 0; k < 11; k++) head[k] = (state[k] as number) ^ (last11[k] as number);
      head[11] = (state[11] as number) ^ i;
      this.heads.push(head);
    }
    this.headWords = this.heads.map((h) => new Uint32Array(Uint8Array.from(h).buffer, 0, 3));
  }

  /** 2^v: a value x is the halves A = ⌊x / 2^v⌋ and B = x mod 2^v. */
  get lowBase(): number {
    return this.modV;
  }

  /** The largest value of the domain: 2^bits − 1. */
  get max(): bigint {
    return (1n << BigInt(this.bits)) - 1n;
  }

  /** The permutation of x in [1, 2^bits): never 0 (0 maps to itself, so the map stays a bijection). */
  encrypt(x: bigint): bigint {
    if (x === 0n) return 0n;
    let y = this.round(x, false);
    while (y === 0n) y = this.round(y, false);
    return y;
  }

  decrypt(y: bigint): bigint {
    if (y === 0n) return 0n;
    let x = this.round(y, true);
    while (x === 0n) x = this.round(x, true);
    return x;
  }

  /** Every value of `xs` encrypted, ten AES calls in all: the cost of a batch hardly grows with its size. */
  encryptMany(xs: readonly bigint[]): bigint[] {
    const n = xs.length;
    const A = new Uint32Array(n);
    const B = new Uint32Array(n);
    for (let k = 0; k < n; k++) this.split(xs[k] as bigint, A, B, k);
    this.encryptHalves(A, B, n);
    const ys = new Array<bigint>(n);
    for (let k = 0; k < n; k++) {
      const x = xs[k] as bigint;
      const y = this.join(A[k] as number, B[k] as number);
      ys[k] = x === 0n ? 0n : y === 0n ? this.encrypt(x) : y;
    }
    return ys;
  }

  /**
   * FF1's rounds over the first `n` values given as halves (A: the high u bits, B: the low v bits), in place: each
   * round is one AES call over all blocks. A block's first 12 bytes are the round's constant, its last 4 CIPH(P)'s
   * tail xor B; only bytes 4..7 of the answer are used (y mod 2^m, m ≤ 32). Outputs of 0 are the caller's to walk on.
   */
  encryptHalves(A: Uint32Array, B: Uint32Array, n: number): void {
    for (let i = 0; i < this.rounds; i++) {
      const out = this.roundOutput(i, B, n);
      // (A + y) mod 2^m with m ≤ 32: the low m bits of the sum, by integer operations (a double's % is fmod).
      const mask = this.maskOf(i);
      for (let k = 0, w = 1; k < n; k++, w += 4) {
        const c = ((A[k] as number) + swap(out[w] as number)) & mask;
        A[k] = B[k] as number;
        B[k] = c;
      }
    }
  }

  /** FF1.Decrypt of the first `n` values given as halves, in place: the rounds of encryptHalves undone. */
  decryptHalves(A: Uint32Array, B: Uint32Array, n: number): void {
    for (let i = this.rounds - 1; i >= 0; i--) {
      const out = this.roundOutput(i, A, n);
      const mask = this.maskOf(i);
      for (let k = 0, w = 1; k < n; k++, w += 4) {
        const c = ((B[k] as number) - swap(out[w] as number)) & mask;
        B[k] = A[k] as number;
        A[k] = c;
      }
    }
  }

  /** Every FF1.Decrypt of `ys`, batched; cycle walking undone as in `decrypt`. */
  decryptMany(ys: readonly bigint[]): bigint[] {
    const n = ys.length;
    const A = new Uint32Array(n);
    const B = new Uint32Array(n);
    for (let k = 0; k < n; k++) this.split(ys[k] as bigint, A, B, k);
    this.decryptHalves(A, B, n);
    const xs = new Array<bigint>(n);
    for (let k = 0; k < n; k++) {
      const y = ys[k] as bigint;
      const x = this.join(A[k] as number, B[k] as number);
      xs[k] = y === 0n ? 0n : x === 0n ? this.decrypt(y) : x;
    }
    return xs;
  }

  /** The mask of round i's m low bits (m ≤ 32); stored into a Uint32Array, the sum's sign bit is dropped. */
  private maskOf(i: number): number {
    const m = i % 2 === 0 ? this.u : this.v;
    return m === 32 ? -1 : 2 ** m - 1;
  }

  /**
   * Round i's AES answers for the first n values of `side`, as native words (y mod 2^32 is word 1 of each block,
   * byte-swapped): one AES call over all blocks. A block's first 8 bytes are the same in every round (set when the
   * buffer is made), byte 8..11 the round's word, the last 4 CIPH(P)'s tail xor NUM(side).
   */
  private roundOutput(i: number, side: Uint32Array, n: number): Uint32Array {
    const words = this.scratch(n);
    const h2 = (this.headWords[i] as Uint32Array)[2] as number;
    const tail = this.tail;
    for (let k = 0, w = 2; k < n; k++, w += 4) {
      words[w] = h2;
      words[w + 1] = swap((tail ^ (side[k] as number)) >>> 0);
    }
    const out = this.cipher.update(new Uint8Array(words.buffer, words.byteOffset, n * 16));
    return out.byteOffset % 4 === 0
      ? new Uint32Array(out.buffer, out.byteOffset, n * 4)
      : new Uint32Array(Uint8Array.from(out).buffer, 0, n * 4);
  }

  /** A reused block buffer of at least n blocks, each block's first two words (the rounds' common ones) set. */
  private scratch(n: number): Uint32Array {
    if (this.blocks.length < n * 4) {
      this.blocks = new Uint32Array(Math.max(n, 64) * 4);
      const head = this.headWords[0] as Uint32Array;
      for (let w = 0; w < this.blocks.length; w += 4) {
        this.blocks[w] = head[0] as number;
        this.blocks[w + 1] = head[1] as number;
      }
    }
    return this.blocks;
  }

  private split(x: bigint, A: Uint32Array, B: Uint32Array, k: number): void {
    if (x < 0n || x > this.max) throw new RangeError(`${x} is outside [0, 2^${this.bits}).`);
    A[k] = Number(x >> BigInt(this.v));
    B[k] = Number(x & BigInt(this.modV - 1));
  }

  private join(a: number, b: number): bigint {
    return (BigInt(a) << BigInt(this.v)) | BigInt(b);
  }

  /** One application of FF1 (or its inverse) to x. */
  private round(x: bigint, decrypt: boolean): bigint {
    const A = new Uint32Array(1);
    const B = new Uint32Array(1);
    this.split(x, A, B, 0);
    let a = A[0] as number;
    let b = B[0] as number;
    const block = Buffer.allocUnsafe(16);
    const y = (i: number, side: number): number => {
      (this.heads[i] as Buffer).copy(block, 0);
      block.writeUInt32BE((this.tail ^ side) >>> 0, 12);
      return this.cipher.update(block).readUInt32BE(4);
    };
    if (!decrypt) {
      for (let i = 0; i < this.rounds; i++) {
        const c = (a + y(i, b)) % (i % 2 === 0 ? this.modU : this.modV);
        a = b;
        b = c;
      }
    } else {
      for (let i = this.rounds - 1; i >= 0; i--) {
        const mod = i % 2 === 0 ? this.modU : this.modV;
        const c = (((b - y(i, a)) % mod) + mod) % mod;
        b = a;
        a = c;
      }
    }
    return this.join(a, b);
  }
}

/** A 32-bit word's bytes reversed: big-endian AES bytes seen through a native (little-endian) Uint32Array. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
function swap(x: number): number {
  if (!LITTLE_ENDIAN) return x >>> 0;
  return (((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24)) >>> 0;
}

function xor16(a: Uint8Array, b: Uint8Array): Buffer {
  const out = Buffer.alloc(16);
  for (let k = 0; k < 16; k++) out[k] = (a[k] as number) ^ (b[k] as number);
  return out;
}
