/** The snowflake routes that read IDs rather than issue them: decode an ID, and the IDs at a time. */
import { LeafError } from '../errors';
import { MAX_DATE_MS, MAX_SNOWFLAKE } from '../snowflake/layout';
import { momentOf, snowflakeBounds } from '../snowflake/timeBounds';
import { type Answer, jsonOk } from './answer';
import { type IdRuntime, snowflakeOff } from './issue';

const DECIMAL_ID = /^[0-9]{1,19}$/;

/** `/api/id/snowflake/{id}`: its fields under this node's layout and epoch. */
export async function decodeSnowflake(runtime: () => IdRuntime | Promise<IdRuntime>, raw: string): Promise<Answer> {
  if (!DECIMAL_ID.test(raw) || BigInt(raw) > MAX_SNOWFLAKE) {
    throw new LeafError('invalid_id', 'A snowflake ID is a decimal integer from 0 to 9223372036854775807.');
  }
  const { snowflake, region: regionInfo } = await runtime();
  if (snowflake === null) throw snowflakeOff();
  const id = BigInt(raw);
  const { layout, epochMs } = snowflake;
  if (id > layout.maxId) {
    throw new LeafError('invalid_id', `An ID of snowflake layout ${layout.text} is at most ${layout.maxId}.`);
  }
  const d = layout.decompose(id, epochMs);
  if (d.timestampMs > MAX_DATE_MS) {
    throw new LeafError(
      'invalid_id',
      `This ID carries a time past ${new Date(MAX_DATE_MS).toISOString()}, the last date there is.`,
    );
  }
  const body = {
    id: id.toString(),
    layout: layout.text,
    layoutBits: layout.describe(),
    // A regional preset's text names the preset only: with the count, a client splits the bits as the nodes do.
    regions: regionInfo?.regions ?? 1,
    timestamp: new Date(d.timestampMs).toISOString(),
    timestampMs: d.timestampMs,
    region: d.region,
    workerId: d.workerId,
    sequence: d.sequence,
  };
  return jsonOk(body);
}

/**
 * `/api/id/snowflake/at?time=T`: the smallest ID this region can issue at or after T and the largest it can have
 * issued before T (lib/snowflake/timeBounds.ts), by the issuing nodes' clocks; null past either end of the layout.
 */
export async function snowflakeAt(
  runtime: () => IdRuntime | Promise<IdRuntime>,
  url: string,
  q: number,
): Promise<Answer> {
  const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  for (const key of params.keys()) {
    if (key !== 'time') throw new LeafError('invalid_request', `Unknown parameter "${key}": give time.`);
  }
  const times = params.getAll('time');
  if (times.length !== 1) throw new LeafError('invalid_request', 'Give time once: an ISO 8601 time or ms since 1970.');
  const timeMs = parseMoment(times[0] as string, 'time');
  const { snowflake, region: regionInfo } = await runtime();
  if (snowflake === null) throw snowflakeOff();
  const { layout, epochMs, region } = snowflake;
  const b = snowflakeBounds(layout, epochMs, region, timeMs);
  return jsonOk({
    time: new Date(timeMs).toISOString(),
    timeMs,
    layout: layout.text,
    epoch: new Date(epochMs).toISOString(),
    regions: regionInfo?.regions ?? 1,
    region,
    unitMs: layout.unitMs,
    firstAtOrAfter: b.firstAtOrAfter === null ? null : b.firstAtOrAfter.toString(),
    lastBefore: b.lastBefore === null ? null : b.lastBefore.toString(),
  });
}

export function parseMoment(text: string, name: string): number {
  const ms = momentOf(text);
  if (ms !== null) return ms;
  throw new LeafError(
    'invalid_request',
    `${name} must be an ISO 8601 time with its zone (2026-12-07T18:00:00Z) or whole ms since 1970 (got ${JSON.stringify(text.slice(0, 40))}).`,
  );
}
