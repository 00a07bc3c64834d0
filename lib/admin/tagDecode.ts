/** GET /api/admin/tags/{tag}/decode/{id}: what an ID of a tag stands for (lib/opaque; issue order for any tag). */
import { claimsHolding } from '../claims/claimLog';
import type { ClaimLogStore } from '../claims/claimLogStore';
import { type ClaimWindow, claimWindow } from '../claims/issued';
import { tagNotFound } from '../errors';
import type { EncodingName } from '../opaque/encoding';
import type { OpaqueTags } from '../opaque/opaqueTags';
import { type IdForm, decodeId, encodeId } from '../opaque/shortForms';
import type { RegionInfo } from '../settings/region';
import type { TagStore } from '../segment/tagStore';

export interface DecodedId {
  tag: string;
  /** As given, and the form it was read in. */
  id: string;
  format: IdForm;
  /** The ID in decimal, and in each short form. */
  value: string;
  forms: Record<IdForm, string>;
  encoding: EncodingName;
  /** An opaque tag's key fingerprint; null for plain. */
  keyId: string | null;
  /** The ID the engine handed out before the permutation (for a plain tag, the ID itself). */
  sequence: string;
  /** With regions: the region whose ID it is and its position there (sequence = position × regions + region). */
  region: number | null;
  position: string | null;
  /** Whether the position lies at or below this database's max_id, so it may have been handed out; null for another region's ID. */
  claimed: boolean | null;
  maxId: string;
  /** The logged claims that hold it: when, by which process, and the window it can have been handed out in. */
  issued: ClaimWindow[];
}

export async function decodeTagId(
  rt: {
    store: { tags: Pick<TagStore, 'getTag'>; claims: Pick<ClaimLogStore, 'rowsHolding'> };
    opaque: Pick<OpaqueTags, 'read'>;
    region: RegionInfo;
  },
  bizTag: string,
  text: string,
  format: IdForm,
): Promise<DecodedId> {
  const value = decodeId(text, format);
  const row = await rt.store.tags.getTag(bizTag);
  if (row === undefined) throw tagNotFound(bizTag);
  // The tag exists, so its encoding row (written with its creation) is read here if it has one.
  const renderer = await rt.opaque.read(bizTag);
  const sequence = renderer === null ? value : renderer.reverse(value);
  const { region: ours, regions } = rt.region;
  const region = regions > 1 ? Number(sequence % BigInt(regions)) : null;
  const position = regions > 1 ? sequence / BigInt(regions) : sequence;
  const claims = await claimsHolding(rt.store.claims, bizTag, sequence);
  return {
    tag: bizTag,
    id: text,
    format,
    value: value.toString(),
    forms: { decimal: value.toString(), base62: encodeId(value, 'base62'), base32: encodeId(value, 'base32') },
    encoding: renderer === null ? 'plain' : renderer.encoding,
    keyId: renderer === null ? null : renderer.keyId,
    sequence: sequence.toString(),
    region,
    position: regions > 1 ? position.toString() : null,
    claimed: region !== null && region !== ours ? null : position <= BigInt(row.maxId),
    maxId: String(row.maxId),
    issued: claims.map(claimWindow),
  };
}
