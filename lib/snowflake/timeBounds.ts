/**
 * From a time to snowflake IDs (docs/design.md#ids-that-tell-when). Time is every layout's highest field, and a
 * generator writes into each ID the time unit its clock is in when it issues it (lib/snowflake/generator.ts: a clock
 * behind the last ID waits or refuses, it never issues into another unit). So, by the issuing node's clock, every ID
 * issued at or after T is at least the first ID of T's unit, and every ID issued before T at most the last ID of the
 * unit of T − 1 ms: bounds exact to the layout's time unit, for one region's IDs.
 */
import { MAX_DATE_MS, type SnowflakeLayout } from './layout';

export interface SnowflakeTimeBounds {
  /** The moment asked about, ms since the Unix epoch. */
  timeMs: number;
  /** The smallest ID the region can issue at or after it; null once the layout's time has run out. */
  firstAtOrAfter: bigint | null;
  /** The largest ID the region can have issued before it; null at or before the epoch. */
  lastBefore: bigint | null;
}

export function snowflakeBounds(
  layout: SnowflakeLayout,
  epochMs: number,
  region: number,
  timeMs: number,
): SnowflakeTimeBounds {
  const first = (unit: number) => layout.composeBase(unit, region, 0);
  const last = (unit: number) => layout.compose(unit, region, layout.maxWorkerId, layout.maxSequence);
  const unit = timeMs < epochMs ? 0 : layout.unitOf(timeMs, epochMs);
  const before = timeMs - 1 < epochMs ? null : Math.min(layout.unitOf(timeMs - 1, epochMs), layout.maxTime);
  return {
    timeMs,
    firstAtOrAfter: unit > layout.maxTime ? null : first(unit),
    lastBefore: before === null ? null : last(before),
  };
}

/**
 * A moment as people and queries write it: ISO 8601 with a zone (`2026-12-07T18:00:00Z`, `…+08:00`) or whole ms since
 * the Unix epoch; null otherwise. A date-time without a zone is not one: it would be read in someone's local zone.
 */
export function momentOf(text: string): number | null {
  // An offset's '+' left unescaped in a query string arrives as a space: read it as the '+' it was.
  const t = text.trim().replace(/ ([0-9]{2}:[0-9]{2})$/, '+$1');
  if (/^-?[0-9]{1,16}$/.test(t)) {
    const ms = Number(t);
    return Math.abs(ms) <= MAX_DATE_MS ? ms : null;
  }
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9]{2}:[0-9]{2})$/i.test(t)) return null;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? null : ms;
}
