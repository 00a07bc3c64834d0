import { LeafError } from '../errors';
import { LEAF_EPOCH_MS, decompose } from './layout';

/**
 * LEAF_SNOWFLAKE_MIN_ID, the floor: every ID a node issues must sort above it (typically the highest ID Leaf
 * issued before the cut-over). The rule works by millisecond: a node issues only in milliseconds after the floor's,
 * so no worker id or sequence can land at or below it, and it costs nothing per ID — the generator simply starts
 * its clock fence at the floor's millisecond, where its clock-step-back handling already refuses to go below.
 */

/** The millisecond (since 1970) the floor carries under this epoch; IDs are issued only after it. */
export function floorTimestampMs(minId: bigint, epochMs: number): number {
  return decompose(minId, epochMs).timestampMs;
}

/**
 * Refuses a start whose smallest ID of the current millisecond (worker 0, sequence 0) is at or below the floor,
 * with one line naming the floor, the time it carries and how far ahead of this clock that is.
 */
export function checkFloor(minId: bigint | null, epochMs: number, nowMs: number): void {
  if (minId === null) return;
  const floorMs = floorTimestampMs(minId, epochMs);
  if (nowMs > floorMs) return;
  // The usual cause: a Leaf-issued floor read under our default epoch, which puts it decades ahead.
  const hint =
    epochMs !== LEAF_EPOCH_MS && floorTimestampMs(minId, LEAF_EPOCH_MS) < nowMs
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
