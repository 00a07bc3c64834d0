/**
 * Which tags of this process are opaque, read once per tag and kept: a tag's encoding never changes, not even through
 * deletion (lib/opaque/encoding.ts). It is read after the engine claimed a segment of the tag, so the tag's row — and
 * the leaf_encoding row written in its creation's transaction — was committed before the read: never missed.
 */
import { type TagEncoding, bitsOf, opaqueKeyMissing } from './encoding';
import type { OpaqueKeyRing } from './keyRing';
import { OpaqueRenderer } from './opaqueRenderer';

export interface EncodingSource {
  getEncoding(bizTag: string): Promise<TagEncoding>;
}

export class OpaqueTags {
  /** null: plain. */
  private readonly known = new Map<string, OpaqueRenderer | null>();
  private readonly reading = new Map<string, Promise<OpaqueRenderer | null>>();

  constructor(
    private readonly source: EncodingSource,
    /** LEAF_OPAQUE_KEY and the retired keys; null: this process serves no opaque tag (it refuses them, never plain). */
    readonly keys: OpaqueKeyRing | null,
  ) {}

  /** The tag's renderer, null when plain, undefined until read (`read`). */
  of(bizTag: string): OpaqueRenderer | null | undefined {
    return this.known.get(bizTag);
  }

  /** Reads the tag's encoding once, shared by concurrent callers; a failed read is tried again by the next. */
  read(bizTag: string): Promise<OpaqueRenderer | null> {
    const known = this.known.get(bizTag);
    if (known !== undefined) return Promise.resolve(known);
    let pending = this.reading.get(bizTag);
    if (pending === undefined) {
      pending = this.source
        .getEncoding(bizTag)
        .then((encoding) => {
          const renderer = this.rendererFor(bizTag, encoding);
          this.known.set(bizTag, renderer);
          return renderer;
        })
        .finally(() => this.reading.delete(bizTag));
      this.reading.set(bizTag, pending);
    }
    return pending;
  }

  /** Refuses a tag under a key this process does not hold, every time it is asked (nothing is kept). */
  private rendererFor(bizTag: string, encoding: TagEncoding): OpaqueRenderer | null {
    if (encoding === null) return null;
    const key = this.keys?.key(encoding.keyId);
    if (key === undefined) throw opaqueKeyMissing(bizTag, encoding.keyId, this.keys?.ids ?? []);
    return new OpaqueRenderer(bizTag, key.cipher(bitsOf(encoding), bizTag), encoding.encoding, encoding.keyId);
  }
}
