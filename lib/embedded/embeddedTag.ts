import { LeafError } from '../errors';
import type { SegmentTag } from '../segment/segmentTag';

/** The largest `take`, as the client's: the IDs come back as an array of bigints. */
export const MAX_TAKE = 1_000_000;

/** One tag of an embedded leaf: the engine's handle with bigint IDs, like the client's `LeafTag`. */
export class EmbeddedTag {
  constructor(
    readonly name: string,
    private readonly handle: SegmentTag,
    /** The leaf's own state: once closed, nothing more is served, buffered or not. */
    private readonly leaf: { readonly closed: boolean },
  ) {}

  next(): bigint | Promise<bigint> {
    if (this.leaf.closed) throw closedError();
    const id = this.handle.next();
    if (typeof id === 'number') return BigInt(id);
    return typeof id === 'bigint' ? id : id.then(toBigInt); // a bigint: a tag above 2^53
  }

  /** `count` IDs (1 to 1,000,000) in increasing order: synchronously when buffered, else a promise. */
  take(count: number): bigint[] | Promise<bigint[]> {
    if (this.leaf.closed) throw closedError();
    if (!Number.isSafeInteger(count) || count < 1 || count > MAX_TAKE) {
      throw new LeafError('invalid_count', `count must be an integer from 1 to ${MAX_TAKE}`);
    }
    const ids = this.handle.take(count);
    return Array.isArray(ids) ? ids.map(toBigInt) : ids.then((all) => all.map(toBigInt));
  }

  /** IDs ready without a claim: what the tag's two segments hold. */
  get buffered(): number {
    return this.handle.buffered;
  }
}

export function closedError(): LeafError {
  return new LeafError('closed', 'This embedded leaf is closed.');
}

function toBigInt(id: number | bigint): bigint {
  return typeof id === 'bigint' ? id : BigInt(id);
}
