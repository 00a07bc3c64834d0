/** A tag's encoding: plain, or opaque under a key (docs/design.md#opaque-tags). Fixed at creation. */
import { LeafError } from '../errors';
import type { OpaqueBits } from './binaryFf1';

export const ENCODINGS = ['plain', 'opaque', 'opaque-js-safe'] as const;
export type EncodingName = (typeof ENCODINGS)[number];

/** An opaque tag's setting as leaf_encoding holds it. */
export interface OpaqueEncoding {
  encoding: 'opaque' | 'opaque-js-safe';
  /** The fingerprint of the key its IDs are permuted with (lib/opaque/key.ts). */
  keyId: string;
}

/** A creation's request: the creating node's current key, and every key it holds (a re-creation keeps its old one). */
export interface RequestedOpaque extends OpaqueEncoding {
  heldKeyIds: readonly string[];
}

/** null: plain. */
export type TagEncoding = OpaqueEncoding | null;

export function encodingName(e: TagEncoding): EncodingName {
  return e === null ? 'plain' : e.encoding;
}

export function bitsOf(e: OpaqueEncoding): OpaqueBits {
  return e.encoding === 'opaque-js-safe' ? 53 : 63;
}

/** leaf_encoding's text back to a setting; anything else is a row written by hand, refused as misconfigured. */
export function encodingFromRow(bizTag: string, encoding: string, keyId: string): OpaqueEncoding {
  if (encoding !== 'opaque' && encoding !== 'opaque-js-safe') {
    throw new LeafError(
      'tag_misconfigured',
      `Tag "${bizTag}" has encoding "${encoding}", which this node does not know.`,
    );
  }
  return { encoding, keyId };
}

/**
 * Whether a creation writes a leaf_encoding row. A name keeps its encoding through deletion: its old IDs and the new
 * ones would meet under another (an old plain 17 is some n's permutation), so a re-creation must ask for the same one.
 */
export function planEncoding(
  bizTag: string,
  requested: RequestedOpaque | null,
  recorded: TagEncoding | undefined,
  hasTombstone: boolean,
): 'insert' | 'none' {
  const before: TagEncoding | undefined = recorded ?? (hasTombstone ? null : undefined);
  if (before === undefined) return requested === null ? 'none' : 'insert';
  if (encodingName(before) !== encodingName(requested)) {
    throw new LeafError(
      'encoding_conflict',
      `Tag "${bizTag}" was ${encodingName(before)} before it was deleted; re-created ${encodingName(requested)}, its new IDs could equal old ones. Create it ${encodingName(before)}, or use another name.`,
    );
  }
  if (before !== null && requested !== null && !requested.heldKeyIds.includes(before.keyId)) {
    throw new LeafError(
      'encoding_conflict',
      `Tag "${bizTag}" was permuted with key ${before.keyId} before it was deleted; this node holds ${requested.heldKeyIds.join(', ')}. Re-create it on a node with that key (a retired key serves), or use another name.`,
    );
  }
  return recorded === undefined && requested !== null ? 'insert' : 'none';
}

export function strictOpaqueRefused(bizTag: string): LeafError {
  return new LeafError(
    'encoding_conflict',
    `Tag "${bizTag}" is opaque: its IDs have no order to keep, so it cannot be strict.`,
  );
}

export function opaqueRangeRefused(bizTag: string): LeafError {
  return new LeafError(
    'opaque_tag_range',
    `Tag "${bizTag}" is opaque: its IDs are not consecutive, so there is no range to lease. Take them with ?count=N.`,
  );
}

export function opaqueKeyMissing(bizTag: string, keyId: string, ours: readonly string[]): LeafError {
  const have = ours.length === 0 ? 'this process has no LEAF_OPAQUE_KEY' : `this process holds ${ours.join(', ')}`;
  return new LeafError(
    'opaque_key_missing',
    `Tag "${bizTag}" is opaque under key ${keyId} and ${have}: it hands out none of its IDs rather than unpermuted ones.`,
  );
}
