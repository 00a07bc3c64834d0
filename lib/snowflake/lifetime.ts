import { LeafError } from '../errors';
import { MAX_DATE_MS, type SnowflakeLayout } from './layout';

/** Under this much time left the node refuses to start; an alert fires years earlier (ops/prometheus). */
export const MIN_YEARS_LEFT = 1;

/** When the layout's time bits run out for this epoch, and how long until then. */
export interface Lifetime {
  /** The first moment with no time unit left, as ISO 8601; null when it is past year 275760 (Date's limit). */
  endsAt: string | null;
  yearsLeft: number;
}

export function lifetimeOf(layout: SnowflakeLayout, epochMs: number, nowMs: number): Lifetime {
  const endMs = layout.endMs(epochMs);
  return {
    endsAt: endMs <= MAX_DATE_MS ? new Date(endMs).toISOString() : null,
    yearsLeft: layout.yearsLeft(epochMs, nowMs),
  };
}

/** Refuses a layout and epoch with under a year left, in one line naming the date (uid-generator's ran out live). */
export function checkLifetime(layout: SnowflakeLayout, epochMs: number, nowMs: number): void {
  const { endsAt, yearsLeft } = lifetimeOf(layout, epochMs, nowMs);
  if (yearsLeft >= MIN_YEARS_LEFT) return;
  const when = yearsLeft <= 0 ? 'ran out' : `runs out in ${Math.round(yearsLeft * 365.25)} days`;
  throw new LeafError(
    'invalid_config',
    `LEAF_SNOWFLAKE_LAYOUT ${layout.text} with LEAF_SNOWFLAKE_EPOCH ${new Date(epochMs).toISOString()} ${when}, at ${endsAt}: its ${layout.bits.time} time bits of ${layout.unitMs} ms end there; choose a later epoch or more time bits (at least ${MIN_YEARS_LEFT} year must be left)`,
  );
}
