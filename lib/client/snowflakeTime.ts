/**
 * Snowflake IDs and time without a server call: an ID's fields, and the IDs at a moment (pure functions of the
 * fleet's layout and epoch, the same as `GET /api/id/snowflake/{id}` and `/api/id/snowflake/at` compute).
 */
import { DEFAULT_EPOCH_MS, LEAF_EPOCH_MS, MAX_DATE_MS, SnowflakeLayout } from '../snowflake/layout';
import { snowflakeBounds } from '../snowflake/timeBounds';
import { LeafClientError } from './errors';

/** What the fleet's nodes were started with. */
export interface SnowflakeFleet {
  /** LEAF_SNOWFLAKE_LAYOUT as the decode route names it (`layout`): `leaf`, `sonyflake`, `js-safe` or a custom text. */
  layout: string;
  /** LEAF_SNOWFLAKE_EPOCH: a Date, ms since 1970, or `'leaf'` (Java Leaf's); default leaf-ts's, 2026-01-01. */
  epoch?: Date | number | 'leaf';
  /** LEAF_REGIONS: with more than one, the layout gives worker bits to the region as the nodes' does; default 1. */
  regions?: number;
  /** LEAF_REGION: which region's IDs; default 0. */
  region?: number;
}

export interface SnowflakeParts {
  /** The start of the ID's time unit. */
  timestamp: Date;
  timestampMs: number;
  region: number;
  workerId: number;
  sequence: number;
}

/** The smallest ID the region's nodes can issue at or after `time`, and the largest they can have issued before it. */
export function snowflakeAt(
  fleet: SnowflakeFleet,
  time: Date | number,
): { firstAtOrAfter: bigint | null; lastBefore: bigint | null } {
  const { layout, epochMs, region } = resolve(fleet);
  const ms = time instanceof Date ? time.getTime() : time;
  if (!Number.isSafeInteger(ms) || Math.abs(ms) > MAX_DATE_MS) {
    throw new LeafClientError('invalid_options', 'time must be a valid Date or whole ms since 1970.');
  }
  const { firstAtOrAfter, lastBefore } = snowflakeBounds(layout, epochMs, region, ms);
  return { firstAtOrAfter, lastBefore };
}

/** An ID's fields under the fleet's layout and epoch. */
export function decodeSnowflakeId(fleet: SnowflakeFleet, id: bigint | string): SnowflakeParts {
  const { layout, epochMs } = resolve(fleet);
  let value: bigint;
  try {
    value = typeof id === 'bigint' ? id : BigInt(/^[0-9]{1,19}$/.test(id) ? id : 'x');
  } catch {
    throw new LeafClientError('invalid_id', 'A snowflake ID is a bigint, or a decimal string of one.');
  }
  if (value < 0n || value > layout.maxId) {
    throw new LeafClientError('invalid_id', `An ID of layout ${layout.text} is from 0 to ${layout.maxId}.`);
  }
  const { timestampMs, region, workerId, sequence } = layout.decompose(value, epochMs);
  return { timestamp: new Date(timestampMs), timestampMs, region, workerId, sequence };
}

function resolve(fleet: SnowflakeFleet): { layout: SnowflakeLayout; epochMs: number; region: number } {
  const parsed = SnowflakeLayout.parse(fleet.layout);
  if (!(parsed instanceof SnowflakeLayout)) {
    throw new LeafClientError('invalid_options', `layout: ${parsed.problem}`);
  }
  const regions = fleet.regions ?? 1;
  if (!Number.isInteger(regions) || regions < 1) {
    throw new LeafClientError('invalid_options', 'regions must be a whole number from 1 (LEAF_REGIONS).');
  }
  const layout = parsed.forRegions(regions);
  if (!(layout instanceof SnowflakeLayout)) {
    throw new LeafClientError('invalid_options', `layout ${parsed.text} with ${regions} regions: ${layout.problem}`);
  }
  const epoch = fleet.epoch ?? DEFAULT_EPOCH_MS;
  const epochMs = epoch === 'leaf' ? LEAF_EPOCH_MS : epoch instanceof Date ? epoch.getTime() : epoch;
  if (!Number.isSafeInteger(epochMs) || epochMs < 0) {
    throw new LeafClientError('invalid_options', 'epoch must be a Date, whole ms since 1970, or "leaf".');
  }
  const region = fleet.region ?? 0;
  if (!Number.isInteger(region) || region < 0 || region > layout.maxRegion) {
    throw new LeafClientError(
      'invalid_options',
      `region must be from 0 to ${layout.maxRegion} in layout ${layout.text}.`,
    );
  }
  return { layout, epochMs, region };
}
