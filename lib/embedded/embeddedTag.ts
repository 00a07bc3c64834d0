import { readableLimit } from '../bizTag';
import { LeafError } from '../errors';
import type { OpaqueRenderer } from '../opaque/opaqueRenderer';
import type { OpaqueTags } from '../opaque/opaqueTags';
import type { Id } from '../segment/id';
import { type RegionStride, regionId } from '../segment/regionIds';
import type { SegmentTag } from '../segment/segmentTag';

/** The largest `take`, as the client's: the IDs come back as an array of bigints. */
export const MAX_TAKE = 1_000_000;

/** One tag of an embedded leaf: the engine's handle with bigint IDs, like the client's `LeafTag`. */
export class EmbeddedTag {
  /** Why nothing is served, buffered or not: the leaf closed, the tag is strict, the database turned regional. */
  refusal: LeafError | null = null;
  /** null: plain; undefined until the tag's encoding was read (after its first claim: lib/opaque/opaqueTags.ts). */
  private renderer: OpaqueRenderer | null | undefined;

  constructor(
    readonly name: string,
    private readonly handle: SegmentTag,
    /** With regions: positions become the IDs n × regions + region (null: the positions are the IDs). */
    private readonly stride: RegionStride | null = null,
    private readonly opaque: OpaqueTags | null = null,
  ) {
    this.renderer = opaque === null ? null : opaque.of(name);
  }

  next(): bigint | Promise<bigint> {
    if (this.refusal !== null) throw this.refusal;
    const id = this.handle.next();
    const renderer = this.renderer;
    if (typeof id === 'number' && this.stride === null && renderer === null) return BigInt(id);
    // Not known yet: the ID first (its claim proves the tag's rows committed), then the encoding.
    if (renderer === undefined)
      return Promise.resolve(id).then(
        (v) => this.known().then(() => this.unlessRefused(this.next1(v))),
        this.refusedInstead,
      );
    // A bigint: a tag above 2^53. A wait may end after the tag turned strict: those IDs are a gap, never handed out.
    return id instanceof Promise
      ? id.then((v) => this.unlessRefused(this.next1(v)), this.refusedInstead)
      : this.next1(id);
  }

  private next1(position: Id): bigint {
    const renderer = this.renderer;
    if (renderer) return BigInt(renderer.one(position, this.stride));
    return toBigInt(this.stride === null ? position : regionId(position, this.stride));
  }

  /** Reads the tag's encoding once (a tag under a key this process lacks refuses every call). */
  private known(): Promise<void> {
    return (this.opaque as OpaqueTags).read(this.name).then((r) => {
      this.renderer = r;
    });
  }

  /** `count` IDs (1 to 1,000,000) in increasing order (an opaque tag's: permuted): synchronously when buffered. */
  take(count: number): bigint[] | Promise<bigint[]> {
    if (this.refusal !== null) throw this.refusal;
    if (!Number.isSafeInteger(count) || count < 1 || count > MAX_TAKE) {
      throw new LeafError('invalid_count', `count must be a whole number from 1 to ${readableLimit(MAX_TAKE)}.`);
    }
    const ids = this.handle.take(count);
    if (this.renderer === undefined)
      return Promise.resolve(ids).then(
        (all) => this.known().then(() => this.unlessRefused(this.takeOf(all))),
        this.refusedInstead,
      );
    return Array.isArray(ids)
      ? this.takeOf(ids)
      : ids.then((all) => this.unlessRefused(this.takeOf(all)), this.refusedInstead);
  }

  private takeOf(positions: Id[]): bigint[] {
    const renderer = this.renderer;
    if (renderer) return renderer.each(positions, this.stride).map(BigInt);
    return positions.map((p) => this.next1(p));
  }

  private unlessRefused<T>(value: T): T {
    if (this.refusal !== null) throw this.refusal;
    return value;
  }

  /** A wait the engine ended because the tag started over (it turned strict here): answered as the refusal. */
  private refusedInstead = (error: unknown): never => {
    throw this.refusal ?? error;
  };

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
