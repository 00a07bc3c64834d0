import { readableLimit } from '../bizTag';
import { LeafError } from '../errors';
import type { Id } from '../segment/id';
import { type RegionStride, regionId } from '../segment/regionIds';
import type { SegmentTag } from '../segment/segmentTag';

/** The largest `take`, as the client's: the IDs come back as an array of bigints. */
export const MAX_TAKE = 1_000_000;

/** One tag of an embedded leaf: the engine's handle with bigint IDs, like the client's `LeafTag`. */
export class EmbeddedTag {
  /** Why nothing is served, buffered or not: the leaf closed, the tag is strict, the database turned regional. */
  refusal: LeafError | null = null;

  constructor(
    readonly name: string,
    private readonly handle: SegmentTag,
    /** With regions: positions become the IDs n × regions + region (null: the positions are the IDs). */
    private readonly stride: RegionStride | null = null,
  ) {}

  next(): bigint | Promise<bigint> {
    if (this.refusal !== null) throw this.refusal;
    const id = this.handle.next();
    if (typeof id === 'number' && this.stride === null) return BigInt(id);
    // A bigint: a tag above 2^53. A wait may end after the tag turned strict: those IDs are a gap, never handed out.
    return id instanceof Promise ? id.then((v) => this.unlessRefused(this.toId(v))) : this.toId(id);
  }

  private toId(position: Id): bigint {
    return toBigInt(this.stride === null ? position : regionId(position, this.stride));
  }

  /** `count` IDs (1 to 1,000,000) in increasing order: synchronously when buffered, else a promise. */
  take(count: number): bigint[] | Promise<bigint[]> {
    if (this.refusal !== null) throw this.refusal;
    if (!Number.isSafeInteger(count) || count < 1 || count > MAX_TAKE) {
      throw new LeafError('invalid_count', `count must be a whole number from 1 to ${readableLimit(MAX_TAKE)}.`);
    }
    const ids = this.handle.take(count);
    const toId = (v: Id) => this.toId(v);
    return Array.isArray(ids) ? ids.map(toId) : ids.then((all) => this.unlessRefused(all.map(toId)));
  }

  private unlessRefused<T>(value: T): T {
    if (this.refusal !== null) throw this.refusal;
    return value;
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
