import { describe, expect, it } from 'vitest';
import { decodeId, encodeId } from '../../lib/opaque/shortForms';
import { MAX_ID } from '../../lib/segment/id';

describe('short string forms', () => {
  const samples = [0n, 1n, 9n, 10n, 61n, 62n, 31n, 32n, 36n, 37n, 1000n, 2n ** 53n - 1n, 2n ** 53n, MAX_ID];
  let seed = 11n;
  for (let i = 0; i < 2000; i++) {
    seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
    samples.push(seed % (MAX_ID + 1n));
  }

  it.each(['decimal', 'base62', 'base32'] as const)('%s round-trips every sample', (form) => {
    for (const id of samples) expect(decodeId(encodeId(id, form), form)).toBe(id);
  });

  it('has the lengths promised: base62 ≤ 11, base32 ≤ 13 + 1 check', () => {
    expect(encodeId(MAX_ID, 'base62')).toBe('AzL8n0Y58m7');
    expect(encodeId(MAX_ID, 'base32')).toHaveLength(14);
    expect(encodeId(0n, 'base32')).toBe('00');
  });

  it('reads Crockford leniently: lower case, hyphens, I/L as 1, O as 0', () => {
    const id = 1234567890123n;
    const text = encodeId(id, 'base32');
    expect(decodeId(text.toLowerCase(), 'base32')).toBe(id);
    expect(decodeId(text.slice(0, 4) + '-' + text.slice(4), 'base32')).toBe(id);
    expect(encodeId(32n, 'base32')).toBe('10*');
    expect(decodeId('1O*', 'base32')).toBe(32n);
    expect(decodeId('l0*', 'base32')).toBe(32n);
  });

  it('catches every single mistyped character and every swap of two neighbours in base32', () => {
    const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    let caught = 0;
    let tried = 0;
    for (const id of samples.slice(0, 200)) {
      const text = encodeId(id, 'base32');
      const body = text.slice(0, -1);
      for (let i = 0; i < body.length; i++) {
        for (const c of ALPHABET) {
          if (c === body[i]) continue;
          tried++;
          try {
            decodeId(body.slice(0, i) + c + body.slice(i + 1) + text.slice(-1), 'base32');
          } catch {
            caught++;
          }
        }
        if (i + 1 < body.length && body[i] !== body[i + 1]) {
          tried++;
          try {
            decodeId(body.slice(0, i) + body[i + 1] + body[i] + body.slice(i + 2) + text.slice(-1), 'base32');
          } catch {
            caught++;
          }
        }
      }
    }
    expect(caught).toBe(tried);
  });

  it('refuses malformed text and values past 2^63−1 with invalid_id', () => {
    for (const [text, form] of [
      ['', 'decimal'],
      ['12a', 'decimal'],
      ['9223372036854775808', 'decimal'],
      ['AzL8n0Y58m8', 'base62'],
      ['a-b', 'base62'],
      ['UU', 'base32'],
      ['0', 'base32'],
    ] as const) {
      expect(() => decodeId(text, form)).toThrow(expect.objectContaining({ code: 'invalid_id' }));
    }
  });
});
