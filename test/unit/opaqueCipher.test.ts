import { describe, expect, it } from 'vitest';
import { BinaryFf1 } from '../../lib/opaque/binaryFf1';
import { decimal63, decimalList } from '../../lib/opaque/decimal';
import { ff1 } from '../../lib/opaque/ff1';
import { OpaqueKey } from '../../lib/opaque/key';

const hex = (h: string) => Buffer.from(h, 'hex');
const digits = (s: string) => [...s].map((c) => parseInt(c, 36));
const text = (d: number[]) => d.map((x) => x.toString(36)).join('');

const K128 = '2B7E151628AED2A6ABF7158809CF4F3C';
const K192 = '2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F';
const K256 = '2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94';
const T1 = '';
const T2 = '39383736353433323130';
const T3 = '3737373770717273373737';
const P10 = '0123456789';
const P36 = '0123456789abcdefghi';

/** NIST SP 800-38G's published FF1 samples 1–9 (CSRC "FF1samples.pdf"). */
const NIST_FF1: Array<[number, string, string, number, string, string]> = [
  [1, K128, T1, 10, P10, '2433477484'],
  [2, K128, T2, 10, P10, '6124200773'],
  [3, K128, T3, 36, P36, 'a9tv40mll9kdu509eum'],
  [4, K192, T1, 10, P10, '2830668132'],
  [5, K192, T2, 10, P10, '2496655549'],
  [6, K192, T3, 36, P36, 'xbj3kv35jrawxv32ysr'],
  [7, K256, T1, 10, P10, '6657667009'],
  [8, K256, T2, 10, P10, '1001623463'],
  [9, K256, T3, 36, P36, 'xs8a0azh2avyalyzuwd'],
];

describe('FF1 (NIST SP 800-38G)', () => {
  it.each(NIST_FF1)('sample %i encrypts and decrypts as published', (_n, key, tweak, radix, pt, ct) => {
    const out = ff1(hex(key), hex(tweak), digits(pt), { radix });
    expect(text(out)).toBe(ct);
    expect(text(ff1(hex(key), hex(tweak), out, { radix }, true))).toBe(pt);
  });

  it('control: a wrong key, or one round fewer, fails every sample', () => {
    for (const [, key, tweak, radix, pt, ct] of NIST_FF1) {
      const wrong = hex(key);
      wrong[0] = (wrong[0] as number) ^ 1;
      expect(text(ff1(wrong, hex(tweak), digits(pt), { radix }))).not.toBe(ct);
      expect(text(ff1(hex(key), hex(tweak), digits(pt), { radix, rounds: 9 }))).not.toBe(ct);
    }
  });

  it.each(['', 'orders', 'a', 'eleven-byte', 'twelve-bytes', 'x'.repeat(27), 'y'.repeat(128)])(
    'the binary form computes the reference FF1 over 63 and 53 binary digits, tweak %j',
    (tweakText) => {
      const key = hex(K256);
      const tweak = Buffer.from(tweakText);
      for (const bits of [63, 53] as const) {
        const f = new BinaryFf1(key, bits, tweak);
        const samples = [1n, 2n, 3n, 1000n, 2n ** 31n, 2n ** 32n + 7n, 12345678901234n, (1n << BigInt(bits)) - 1n];
        for (const x of samples) {
          const bitsOfX = x.toString(2).padStart(bits, '0').split('').map(Number);
          const ref = BigInt('0b' + ff1(key, tweak, bitsOfX, { radix: 2 }).join(''));
          expect(f.encrypt(x)).toBe(ref);
          expect(f.decrypt(ref)).toBe(x);
        }
        // Batches agree with single IDs, whatever their size.
        const xs = Array.from({ length: 300 }, (_, i) => BigInt(i * 7919 + 1));
        const ys = f.encryptMany(xs);
        expect(ys).toEqual(xs.map((x) => f.encrypt(x)));
        expect(f.decryptMany(ys)).toEqual(xs);
      }
    },
  );

  it('two tags under one key are two unrelated permutations (the tag is the tweak)', () => {
    const key = new OpaqueKey(Buffer.alloc(32, 3));
    const a = key.cipher(63, 'orders').encryptMany([1n, 2n, 3n]);
    const b = key.cipher(63, 'users').encryptMany([1n, 2n, 3n]);
    expect(a.filter((y, k) => y === b[k])).toEqual([]);
  });

  it('control: the binary form with one round fewer is not FF1', () => {
    const key = hex(K256);
    const right = new BinaryFf1(key, 63);
    const weak = new BinaryFf1(key, 63, new Uint8Array(0), 9);
    const xs = [1n, 2n, 3n, 99n];
    expect(xs.filter((x) => weak.encrypt(x) === right.encrypt(x))).toEqual([]);
  });

  it('maps 20,000 IDs to 20,000 distinct values inside the domain, none of them 0', () => {
    const f = new BinaryFf1(hex(K256), 53);
    const seen = new Set<bigint>();
    const xs = Array.from({ length: 20_000 }, (_, i) => BigInt(i + 1));
    for (const y of f.encryptMany(xs)) {
      expect(y).not.toBe(0n);
      expect(y <= f.max).toBe(true);
      seen.add(y);
    }
    expect(seen.size).toBe(xs.length);
    expect(f.encrypt(0n)).toBe(0n);
  });
});

describe('decimal63 and decimalList', () => {
  it('writes a·2^32 + b exactly, across the whole range', () => {
    const cases: Array<[number, number]> = [
      [0, 0],
      [0, 5],
      [1, 0],
      [2 ** 31 - 1, 2 ** 32 - 1],
      [232830, 2313682943],
    ];
    let seed = 7;
    const rnd = (m: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % m;
    };
    for (let i = 0; i < 20_000; i++) cases.push([rnd(2 ** 31), rnd(2 ** 31) * 2 + rnd(2)]);
    for (const [a, b] of cases) expect(decimal63(a, b)).toBe(((BigInt(a) << 32n) | BigInt(b)).toString());
    // decimalList writes the same digits as one list, and asks `other` for an entry of two zero halves.
    const A = Uint32Array.from(cases.map(([a]) => a));
    const B = Uint32Array.from(cases.map(([, b]) => b));
    const expected = cases.map(([a, b], k) => (a === 0 && b === 0 ? `other${k}` : decimal63(a, b)));
    expect(decimalList('{"ids":["', '","', '"]}', A, B, cases.length, (k) => `other${k}`)).toBe(
      `{"ids":["${expected.join('","')}"]}`,
    );
    expect(decimalList('[', ',', ']', A, B, 3, () => null)).toBe('[0,5,4294967296]');
  });
});

describe('OpaqueKey', () => {
  it('refuses a short secret, and never shows the secret', () => {
    expect(() => new OpaqueKey(Buffer.alloc(31, 1))).toThrow(/at least 32 bytes/);
    const secret = 'x'.repeat(40);
    const key = new OpaqueKey(Buffer.from(secret));
    expect(key.id).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify({ key })).not.toContain(secret);
    expect(String(key)).toBe(`OpaqueKey(${key.id})`);
    // Another secret, another fingerprint and another permutation.
    const other = new OpaqueKey(Buffer.from('y'.repeat(40)));
    expect(other.id).not.toBe(key.id);
    expect(other.cipher(63, 't').encrypt(1n)).not.toBe(key.cipher(63, 't').encrypt(1n));
  });
});
