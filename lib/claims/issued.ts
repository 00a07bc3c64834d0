/**
 * From the claim log to answers (docs/design.md#ids-that-tell-when): a claim's IDs can have been handed out from its
 * claim until its claimer retired it, plus the time a lease taken from it may still be used.
 */
import { byNumberingAndFirst, idAt } from './numbering';
import { type LoggedClaim, servedUntil } from './retirement';

/** IDs `first`, `first + stride`, …, `last`: a region's IDs are `stride` (its region count) apart. */
export interface IssuedRange {
  first: string;
  last: string;
  stride: number;
}

/** One claim as the decode route shows it. */
export interface ClaimWindow extends IssuedRange {
  kind: LoggedClaim['kind'];
  claimer: string;
  region: number;
  claimedAt: string;
  /** The claim's IDs can have been handed out from `from` until `until`; null: its claimer is not known to be done. */
  servedFrom: string;
  servedUntil: string | null;
}

export function claimWindow(c: LoggedClaim): ClaimWindow {
  const until = servedUntil(c);
  return {
    first: idAt(c.first, c.region, c.regions).toString(),
    last: idAt(c.last, c.region, c.regions).toString(),
    stride: c.regions,
    kind: c.kind,
    claimer: c.claimer,
    region: c.region,
    claimedAt: new Date(c.claimedAt).toISOString(),
    servedFrom: new Date(c.claimedAt).toISOString(),
    servedUntil: until === null ? null : new Date(until).toISOString(),
  };
}

/**
 * The claims' IDs as few ranges as they make: claims of one numbering that overlap or touch become one range (a
 * given-back tail claimed again overlaps its first claim). Ordered by stride, region, then first ID.
 */
export function issuedRanges(claims: readonly LoggedClaim[]): IssuedRange[] {
  const sorted = [...claims].sort(byNumberingAndFirst);
  const out: Array<{ first: bigint; last: bigint; region: number; regions: number }> = [];
  for (const c of sorted) {
    const open = out[out.length - 1];
    if (open !== undefined && open.regions === c.regions && open.region === c.region && c.first <= open.last + 1n) {
      if (c.last > open.last) open.last = c.last;
    } else out.push({ first: c.first, last: c.last, region: c.region, regions: c.regions });
  }
  return out.map((r) => ({
    first: idAt(r.first, r.region, r.regions).toString(),
    last: idAt(r.last, r.region, r.regions).toString(),
    stride: r.regions,
  }));
}

/** How many IDs the ranges hold. */
export function idCount(ranges: readonly IssuedRange[]): bigint {
  return ranges.reduce((n, r) => n + (BigInt(r.last) - BigInt(r.first)) / BigInt(r.stride) + 1n, 0n);
}
