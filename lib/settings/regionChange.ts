/**
 * Changing LEAF_REGIONS (or turning regions on) without issuing an ID twice (docs/operations.md#changing-the-region-count).
 * A region's position n is the ID n × R + region only while R stays: under a new count R' the next ID of a region
 * could be one another region issued under R. So every region's rows are raised first — each tag, tombstone and
 * formatted period to the lowest position whose ID under R' is above every ID any region issued under R — and only
 * then does each database's region record take the new count. The plan is a pure function of what the databases
 * hold; `scripts/regions.ts change` reads them, plans, and writes each database in one transaction.
 */
import { LeafError } from '../errors';
import type { RegionInfo } from './region';

/** What one region's database holds, as the change reads it. */
export interface RegionHoldings {
  /** Its record (null: a new, empty database for a new region). */
  recorded: RegionInfo | null;
  /** Per tag, the highest position claimed: leaf_alloc's max_id, or a deleted tag's tombstone (the larger). */
  tags: ReadonlyMap<string, bigint>;
  /** Per `tag\u0000periodKey` of a formatted tag, the highest sequence position claimed. */
  periods: ReadonlyMap<string, bigint>;
}

/** What the change writes to one database. */
export interface RegionWrite {
  /** Its new record: the same database id (or a new one for a new database) and number, the new count. */
  record: RegionInfo;
  /** Per tag: max_id raised to at least this (a tombstone where the tag is missing, so a create continues above). */
  tags: Map<string, bigint>;
  /** Per formatted period: max_id raised to at least this (the row made where it is missing). */
  periods: Map<string, bigint>;
}

export interface RegionChangePlan {
  from: number;
  to: number;
  /** Per tag and per period, the highest ID any region issued under the counts recorded. */
  highest: { tags: Map<string, bigint>; periods: Map<string, bigint> };
  writes: RegionWrite[];
}

function refuse(message: string): never {
  throw new LeafError('invalid_config', message);
}

/**
 * The writes that move every database to `to` regions. Databases are given in any order; existing ones must be the
 * whole fleet (one per region number, every number below their count), and new ones (no record) take the numbers
 * from the old count upwards. A database already at `to` (a run cut short and started again) is read under that
 * count: the plan is the same whether it runs once or twice.
 */
export function planRegionChange(
  dbs: readonly RegionHoldings[],
  to: number,
  newDatabaseId: () => string,
): RegionChangePlan {
  if (!Number.isInteger(to) || to < 1 || to > 1024) refuse(`--to must be a region count from 1 to 1024 (got ${to})`);
  const existing = dbs.filter((d) => d.recorded !== null) as Array<RegionHoldings & { recorded: RegionInfo }>;
  if (existing.length === 0) refuse('No database with a region record: give every existing region’s database.');
  const counts = new Set(existing.filter((d) => d.recorded.regions !== to).map((d) => d.recorded.regions));
  if (counts.size > 1)
    refuse(`The databases record different region counts (${[...counts].join(', ')}): give one fleet.`);
  const from = counts.size === 0 ? to : [...counts][0]!;
  const numbers = new Map<number, string>();
  for (const d of existing) {
    const other = numbers.get(d.recorded.region);
    if (other !== undefined && other !== d.recorded.database)
      refuse(
        `Two databases record region ${d.recorded.region} (${other.slice(0, 8)}, ${d.recorded.database.slice(0, 8)}).`,
      );
    numbers.set(d.recorded.region, d.recorded.database);
  }
  for (let r = 0; r < Math.min(from, to); r++)
    if (!numbers.has(r)) refuse(`Region ${r} of ${from} is missing: give every existing region's database.`);
  for (const r of numbers.keys())
    if (r >= to)
      refuse(
        `Region ${r} has no place among ${to} regions: lowering the count drops a region, which this does not do.`,
      );
  const fresh = dbs.filter((d) => d.recorded === null);
  const free = Array.from({ length: to }, (_, r) => r).filter((r) => !numbers.has(r));
  if (fresh.length > free.length)
    refuse(`${fresh.length} new databases, but only ${free.length} free region numbers below ${to}.`);

  // The highest ID each tag and period has had in any region, each database read under its own recorded count.
  const highest = { tags: new Map<string, bigint>(), periods: new Map<string, bigint>() };
  for (const d of existing) {
    const stride = BigInt(d.recorded.regions);
    const own = BigInt(d.recorded.region);
    for (const [kind, held] of [
      ['tags', d.tags],
      ['periods', d.periods],
    ] as const) {
      for (const [key, position] of held) {
        const id = position * stride + own;
        const seen = highest[kind].get(key);
        if (seen === undefined || id > seen) highest[kind].set(key, id);
      }
    }
  }

  const write = (record: RegionInfo): RegionWrite => {
    // The lowest position p with p × to + region above the highest ID: what a claim from max_id = p serves first in
    // either claim semantics (leaf serves max_id itself).
    const floor = (id: bigint) => (id - BigInt(record.region)) / BigInt(to) + 1n;
    return {
      record,
      tags: new Map([...highest.tags].map(([k, id]) => [k, floor(id)])),
      periods: new Map([...highest.periods].map(([k, id]) => [k, floor(id)])),
    };
  };
  const writes = [
    ...existing.map((d) => write({ ...d.recorded, regions: to })),
    ...fresh.map((_, i) => write({ region: free[i]!, regions: to, database: newDatabaseId() })),
  ];
  return { from, to, highest, writes };
}
