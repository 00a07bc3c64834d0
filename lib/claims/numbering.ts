/** A claim's positions and the IDs they are: position n of region r among R is the ID n × R + r (docs/design.md#regions). */

export function idAt(position: bigint, region: number, regions: number): bigint {
  return position * BigInt(regions) + BigInt(region);
}

/** The position of `id` in numbering (`region`, `regions`), or null when the ID is not of it. */
export function positionOf(id: bigint, region: number, regions: number): bigint | null {
  const offset = id - BigInt(region);
  return offset >= 0n && offset % BigInt(regions) === 0n ? offset / BigInt(regions) : null;
}

/** Whether `id` is one of claim `c`'s IDs. */
export function holdsId(c: { first: bigint; last: bigint; region: number; regions: number }, id: bigint): boolean {
  const p = positionOf(id, c.region, c.regions);
  return p !== null && p >= c.first && p <= c.last;
}

/** Claims by numbering (region count, then region), then first position: the order their ranges are answered in. */
export function byNumberingAndFirst(
  a: { first: bigint; region: number; regions: number },
  b: { first: bigint; region: number; regions: number },
): number {
  return a.regions - b.regions || a.region - b.region || (a.first < b.first ? -1 : a.first > b.first ? 1 : 0);
}
