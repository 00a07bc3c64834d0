/**
 * Short string forms of an ID (any tag's, opaque or not): base62 (0-9A-Za-z, 11 characters at most) and Crockford's
 * base32 with its check symbol (13 + 1 at most; case-insensitive, I/L read as 1 and O as 0, hyphens ignored, and a
 * mistyped character or two swapped ones are caught by the check). An encoding, not a cipher: it hides nothing.
 */
import { LeafError } from '../errors';
import { MAX_ID } from '../segment/id';

export const ID_FORMS = ['decimal', 'base62', 'base32'] as const;
export type IdForm = (typeof ID_FORMS)[number];

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** The check symbol is the value mod 37: the 32 digits and five more. */
const CROCKFORD_CHECK = CROCKFORD + '*~$=U';

export function encodeId(id: bigint, form: IdForm): string {
  if (form === 'decimal') return id.toString();
  if (form === 'base62') return digitsOf(id, 62n, BASE62);
  return digitsOf(id, 32n, CROCKFORD) + (CROCKFORD_CHECK[Number(id % 37n)] as string);
}

function digitsOf(id: bigint, radix: bigint, alphabet: string): string {
  if (id === 0n) return alphabet[0] as string;
  let out = '';
  for (let x = id; x > 0n; x /= radix) out = (alphabet[Number(x % radix)] as string) + out;
  return out;
}

/** The ID a string form stands for, or a 400 `invalid_id` saying what is wrong with it. */
export function decodeId(text: string, form: IdForm): bigint {
  let value: bigint;
  if (form === 'decimal') {
    if (!/^[0-9]{1,19}$/.test(text)) throw invalidId('A decimal ID is 1 to 19 digits.');
    value = BigInt(text);
  } else if (form === 'base62') {
    if (!/^[0-9A-Za-z]{1,11}$/.test(text)) throw invalidId('A base62 ID is 1 to 11 of 0-9, A-Z, a-z.');
    value = valueOf(text, 62n, (c) => BASE62.indexOf(c));
  } else {
    value = crockford(text);
  }
  if (value > MAX_ID) throw invalidId(`"${text}" stands for ${value}, above 2^63−1: no ID is that large.`);
  return value;
}

function valueOf(text: string, radix: bigint, digit: (c: string) => number): bigint {
  let x = 0n;
  for (const c of text) x = x * radix + BigInt(digit(c));
  return x;
}

function crockford(text: string): bigint {
  const clean = text.replace(/-/g, '').toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
  if (!/^[0-9A-HJKMNP-TV-Z]{1,13}[0-9A-HJKMNP-TV-Z*~$=U]$/.test(clean)) {
    throw invalidId('A base32 ID is 1 to 13 Crockford digits and a check symbol.');
  }
  const body = clean.slice(0, -1);
  const value = valueOf(body, 32n, (c) => CROCKFORD.indexOf(c));
  if (CROCKFORD_CHECK[Number(value % 37n)] !== clean.slice(-1)) {
    throw invalidId(`"${text}" fails its check symbol: a character is mistyped or two are swapped.`);
  }
  return value;
}

function invalidId(message: string): LeafError {
  return new LeafError('invalid_id', message);
}
