/**
 * An opaque tag's IDs as its clients see them: each ID the engine hands out (a region's ID once the stride is
 * applied) goes through the tag's keyed permutation and is written in decimal. Batches pay ten AES calls; single IDs
 * pay them once per window of WINDOW consecutive positions, computed ahead (nothing is taken ahead: only arithmetic).
 */
import { LeafError } from '../errors';
import { type IdRanges, runBase } from '../segment/idRanges';
import { type Id, idBigint } from '../segment/id';
import { type RegionStride, regionId } from '../segment/regionIds';
import type { BinaryFf1 } from './binaryFf1';
import { decimal63, decimalList } from './decimal';

const WINDOW = 64;

export class OpaqueRenderer {
  /** No window yet: no position is within WINDOW of it. */
  private winStart = -Infinity;
  private winStride: RegionStride | null = null;
  private readonly win: string[] = new Array<string>(WINDOW);
  private readonly A = new Uint32Array(WINDOW);
  private readonly B = new Uint32Array(WINDOW);
  private readonly limit: number;
  /** 2^v, where FF1 splits an ID into its halves. */
  private readonly low: number;

  constructor(
    readonly bizTag: string,
    private readonly cipher: BinaryFf1,
    readonly encoding: 'opaque' | 'opaque-js-safe',
    readonly keyId: string,
  ) {
    // The last ID the permutation's domain holds, as a number where one can hold it (53 bits: every ID is one).
    this.limit = cipher.bits === 53 ? Number.MAX_SAFE_INTEGER : Infinity;
    this.low = cipher.lowBase;
  }

  /** The permuted ID of position `p` (an engine ID; with regions, its region's ID is permuted). */
  one(p: Id, stride: RegionStride | null | undefined): string {
    const s = stride ?? null;
    if (typeof p === 'number' && s === this.winStride) {
      const k = p - this.winStart;
      if (k >= 0 && k < WINDOW) return this.win[k] as string;
    }
    if (typeof p !== 'number' || !this.fill(p, s)) return this.slow(idOf(p, s));
    return this.win[0] as string;
  }

  /** Every ID of `ranges`, in order, permuted. */
  many(ranges: IdRanges, stride: RegionStride | null | undefined): string[] {
    return this.each(positionsOf(ranges), stride);
  }

  /** Every ID of `ranges`, in order, permuted, joined by `sep` between `open` and `close`: a batch's answer. */
  manyText(
    ranges: IdRanges,
    stride: RegionStride | null | undefined,
    open: string,
    sep: string,
    close: string,
  ): string {
    if (ranges.bases !== null || stride != null || this.cipher.bits !== 63)
      return open + this.many(ranges, stride).join(sep) + close;
    // The common batch: runs of IDs below 2^53 without regions, read straight into FF1's halves.
    const n = ranges.count;
    const A = new Uint32Array(n);
    const B = new Uint32Array(n);
    const ids = new Float64Array(n);
    const low = this.low;
    const { bounds } = ranges;
    let k = 0;
    for (let r = 0; r < bounds.length; r += 2) {
      const last = bounds[r + 1] as number;
      for (let id = bounds[r] as number; id <= last; id++, k++) {
        const a = Math.floor(id / low);
        A[k] = a;
        B[k] = id - a * low;
        ids[k] = id;
      }
    }
    this.cipher.encryptHalves(A, B, n);
    return decimalList(open, sep, close, A, B, n, (j) => this.text(0, 0, ids[j] as number));
  }

  /** Each position's permuted ID, in order (ten AES calls in all). */
  each(positions: readonly Id[], stride: RegionStride | null | undefined): string[] {
    const n = positions.length;
    const A = new Uint32Array(n);
    const B = new Uint32Array(n);
    const ids = new Array<Id>(n);
    let wide = false;
    const low = this.low;
    for (let k = 0; k < n; k++) {
      const id = idOf(positions[k] as Id, stride ?? null);
      if (typeof id === 'number') {
        this.check(id);
        A[k] = Math.floor(id / low);
        B[k] = id % low;
      } else wide = true;
      ids[k] = id;
    }
    if (wide) return this.cipher.encryptMany(ids.map((id) => this.bigChecked(id))).map(String);
    this.cipher.encryptHalves(A, B, n);
    const out = new Array<string>(n);
    for (let j = 0; j < n; j++) out[j] = this.text(A[j] as number, B[j] as number, ids[j] as Id);
    return out;
  }

  /** The ID the engine handed out for an opaque ID of this tag: 400 `invalid_id` for a value outside the domain. */
  reverse(value: bigint): bigint {
    if (value > this.cipher.max) {
      throw new LeafError(
        'invalid_id',
        `${value} is not an ID of tag "${this.bizTag}": its IDs are below 2^${this.cipher.bits}.`,
      );
    }
    return this.cipher.decrypt(value);
  }

  /** Positions p … p + WINDOW − 1, when all of them are numbers inside the domain; false otherwise. */
  private fill(p: number, s: RegionStride | null): boolean {
    const lastId = s === null ? p + WINDOW - 1 : (p + WINDOW - 1) * s.regions + s.region;
    if (lastId > Number.MAX_SAFE_INTEGER || lastId > this.limit) return false;
    const ids = new Array<number>(WINDOW);
    for (let k = 0; k < WINDOW; k++) {
      const id = s === null ? p + k : (p + k) * s.regions + s.region;
      ids[k] = id;
      this.A[k] = Math.floor(id / this.low);
      this.B[k] = id % this.low;
    }
    this.cipher.encryptHalves(this.A, this.B, WINDOW);
    for (let k = 0; k < WINDOW; k++)
      this.win[k] = this.text(this.A[k] as number, this.B[k] as number, ids[k] as number);
    this.winStart = p;
    this.winStride = s;
    return true;
  }

  /** Halves to decimal; an output of 0 walks on (cycle walking, once in 2^63), an input of 0 stays 0. */
  private text(a: number, b: number, id: Id): string {
    if (a === 0 && b === 0) return id === 0 ? '0' : this.cipher.encrypt(idBigint(id)).toString();
    if (this.cipher.bits === 53) return String(a * this.low + b);
    return decimal63(a, b);
  }

  private slow(id: Id): string {
    return this.cipher.encrypt(this.bigChecked(id)).toString();
  }

  private bigChecked(id: Id): bigint {
    const big = idBigint(id);
    if (big > this.cipher.max) throw this.exhausted(id);
    return big;
  }

  private check(id: number): void {
    if (id > this.limit) throw this.exhausted(id);
  }

  private exhausted(id: Id): LeafError {
    return new LeafError(
      'id_space_exhausted',
      `Tag "${this.bizTag}" is opaque-js-safe: its IDs end at 2^53−1, and the next is ${id}.`,
    );
  }
}

function idOf(p: Id, s: RegionStride | null): Id {
  return s === null ? p : regionId(p, s);
}

/** Every position of `ranges`, in order: numbers, or bigints for a run above 2^53. */
function positionsOf(ranges: IdRanges): Id[] {
  const positions: Id[] = [];
  const { bounds } = ranges;
  for (let r = 0; r < bounds.length; r += 2) {
    const base = runBase(ranges, r);
    const last = bounds[r + 1] as number;
    for (let p = bounds[r] as number; p <= last; p++) positions.push(base === null ? p : base + BigInt(p));
  }
  return positions;
}
