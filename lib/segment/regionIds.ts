/** Segment IDs of one region among R: the region's own position n is the ID n × R + region (docs/design.md#regions). */
import { LeafError } from '../errors';
import { type Id, MAX_ID, MAX_ID_TEXT, idBigint, toId } from './id';
import { type IdRanges, runBase } from './idRanges';

export interface RegionStride {
  readonly regions: number;
  readonly region: number;
}

/** null with regions off: the positions are the IDs, and no answer pays for a multiply. */
export function regionStride(region: number, regions: number): RegionStride | null {
  return regions > 1 ? { regions, region } : null;
}

const SAFE_LIMIT = Number.MAX_SAFE_INTEGER;

/** The ID of position `n` in this region. */
export function regionId(n: Id, s: RegionStride): Id {
  if (typeof n === 'number') {
    const id = n * s.regions + s.region;
    if (id <= SAFE_LIMIT) return id;
  }
  const id = idBigint(n) * BigInt(s.regions) + BigInt(s.region);
  if (id > MAX_ID) {
    throw new LeafError(
      'id_space_exhausted',
      `Position ${n} of region ${s.region} of ${s.regions} is past ${MAX_ID_TEXT}: this tag has no IDs left in this region.`,
    );
  }
  return toId(id);
}

/** Every position of `ranges` as its ID, in order (a region's batch: no two consecutive, so no runs to print). */
export function regionIds(ranges: IdRanges, s: RegionStride): Id[] {
  const out = new Array<Id>(ranges.count);
  let k = 0;
  const { bounds } = ranges;
  for (let r = 0; r < bounds.length; r += 2) {
    const base = runBase(ranges, r);
    const last = bounds[r + 1] as number;
    for (let p = bounds[r] as number; p <= last; p++) out[k++] = regionId(base === null ? p : base + BigInt(p), s);
  }
  return out;
}

/**
 * A region's IDs as runs (an owner's `/runs` answer, stepped by the stride) back to this region's positions: the
 * IDs must be this region's, or they came from a node numbered otherwise (refused: rendering them would be wrong).
 */
export function positionRuns(
  runs: ReadonlyArray<{ start: string; end: string }>,
  s: RegionStride | null,
): Array<{ start: string; end: string }> {
  if (s === null) return [...runs];
  const regions = BigInt(s.regions);
  const region = BigInt(s.region);
  return runs.map(({ start, end }) => {
    const first = BigInt(start) - region;
    const last = BigInt(end) - region;
    if (first < 0n || first % regions !== 0n || last % regions !== 0n) {
      throw new LeafError(
        'owner_unavailable',
        `The owner answered IDs ${start}..${end}, not of region ${s.region} of ${s.regions}; try again.`,
        { retryAfterSeconds: 1 },
      );
    }
    return { start: String(first / regions), end: String(last / regions) };
  });
}
