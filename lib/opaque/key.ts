/**
 * LEAF_OPAQUE_KEY: at least 32 bytes of secret. The permutation's AES-256 key is derived from it with HKDF, and its
 * fingerprint (an HMAC of a fixed label, 16 hex digits) names it in the database without revealing it.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { BinaryFf1, type OpaqueBits } from './binaryFf1';

export const MIN_OPAQUE_KEY_BYTES = 32;

export class OpaqueKey {
  /** 16 hex digits: what leaf_encoding and the fleet's setting record. */
  readonly id: string;
  private readonly aesKey: Buffer;
  /** By width and tag: one FF1 per tag, its name the tweak. */
  private readonly ciphers = new Map<string, BinaryFf1>();

  constructor(secret: Uint8Array) {
    if (secret.length < MIN_OPAQUE_KEY_BYTES) {
      throw new RangeError(`An opaque key is at least ${MIN_OPAQUE_KEY_BYTES} bytes; this one has ${secret.length}.`);
    }
    this.id = createHmac('sha256', secret).update('leaf-ts opaque key fingerprint').digest('hex').slice(0, 16);
    this.aesKey = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'leaf-ts opaque FF1 AES-256', 32));
  }

  /** FF1 over `bits` binary digits under this key, tweaked by the tag's name: each tag its own permutation. */
  cipher(bits: OpaqueBits, bizTag: string): BinaryFf1 {
    const name = `${bits}:${bizTag}`;
    let c = this.ciphers.get(name);
    if (c === undefined) {
      c = new BinaryFf1(this.aesKey, bits, Buffer.from(bizTag, 'utf8'));
      this.ciphers.set(name, c);
    }
    return c;
  }

  /** Never the secret: a key that lands in a log or an error shows its fingerprint. */
  toJSON(): string {
    return `OpaqueKey(${this.id})`;
  }

  toString(): string {
    return this.toJSON();
  }
}

/** The key's text as LEAF_OPAQUE_KEY or its file holds it: its UTF-8 bytes, surrounding whitespace dropped. */
export function opaqueKeyFromText(text: string): OpaqueKey {
  return new OpaqueKey(Buffer.from(text.trim(), 'utf8'));
}

/** How many bytes of secret a key's text holds, counted as opaqueKeyFromText takes them. */
export function opaqueKeyBytes(text: string): number {
  return Buffer.byteLength(text.trim(), 'utf8');
}
