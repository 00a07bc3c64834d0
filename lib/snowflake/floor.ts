import { LeafError } from '../errors';
import { LEAF_EPOCH_MS, type SnowflakeLayout } from './layout';

/** LEAF_SNOWFLAKE_MIN_ID: IDs only in milliseconds after the floor's, so every ID sorts above it, at no cost per ID. */

/** The millisecond (since 1970) the floor carries under this epoch; IDs are issued only after it. */
export function floorTimestampMs(minId: bigint, epochMs: number, layout: SnowflakeLayout): number {
  return layout.decompose(minId, epochMs).timestampMs;
}

/** Refuses a start whose clock has not passed the floor's millisecond, in one line. */
export function checkFloor(minId: bigint | null, epochMs: number, nowMs: number, layout: SnowflakeLayout): void {
  if (minId === null) return;
  if (minId > layout.maxId)
    throw new LeafError(
      'invalid_config',
      `LEAF_SNOWFLAKE_MIN_ID ${minId} is above every ID of layout ${layout.text} (at most ${layout.maxId})`,
    );
  const floorMs = floorTimestampMs(minId, epochMs, layout);
  // IDs start in the unit after the floor's: its whole unit must be behind this clock.
  if (nowMs >= floorMs + layout.unitMs) return;
  // The usual cause: a Leaf-issued floor read under our default epoch, which puts it decades ahead.
  const hint =
    epochMs !== LEAF_EPOCH_MS && floorTimestampMs(minId, LEAF_EPOCH_MS, layout) < nowMs
      ? '; a floor issued by Leaf needs LEAF_SNOWFLAKE_EPOCH=leaf'
      : '';
  throw new LeafError(
    'invalid_config',
    `LEAF_SNOWFLAKE_MIN_ID ${minId} is not below the IDs this node would issue: with the epoch ${iso(epochMs)} it carries ${iso(floorMs)}, ${aheadText(floorMs - nowMs)} ahead of this clock (${iso(nowMs)})${hint}`,
  );
}

const iso = (ms: number) => new Date(ms).toISOString();

function aheadText(ms: number): string {
  if (ms < 2_000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 172_800_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} days`;
}
