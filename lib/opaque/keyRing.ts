/**
 * The keys a process permutes opaque tags with: the current one, which new tags take, and retired ones, which keep
 * serving (and decoding) the tags created under them. A tag records its key's fingerprint, so rotating the key never
 * changes an existing tag's permutation (docs/operations.md#rotating-the-opaque-key).
 */
import type { OpaqueKey } from './key';

export class OpaqueKeyRing {
  private readonly byId = new Map<string, OpaqueKey>();

  constructor(
    /** LEAF_OPAQUE_KEY: what a tag created here is permuted with. */
    readonly current: OpaqueKey,
    /** LEAF_OPAQUE_RETIRED_KEYS_FILE: for the tags that were created under them. */
    readonly retired: readonly OpaqueKey[] = [],
  ) {
    for (const key of [current, ...retired]) {
      if (this.byId.has(key.id)) {
        throw new RangeError(`The opaque key ${key.id} is given twice (as the current key or a retired one).`);
      }
      this.byId.set(key.id, key);
    }
  }

  /** The key with this fingerprint, if this process holds it. */
  key(id: string): OpaqueKey | undefined {
    return this.byId.get(id);
  }

  holds(id: string): boolean {
    return this.byId.has(id);
  }

  /** Fingerprints, the current key's first. */
  get ids(): string[] {
    return [...this.byId.keys()];
  }

  /** Never a secret: fingerprints only. */
  toJSON(): string {
    return `OpaqueKeyRing(${this.ids.join(', ')})`;
  }
}
