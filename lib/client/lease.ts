import { LeafClientError } from './errors';
import type { OrderingAnswer } from './orderingWatch';

/** Leaf's `max_id` is a signed bigint: no ID is ever above 2^63−1. */
export const MAX_ID = 2n ** 63n - 1n;
/** The range route's own limit on one lease. */
export const MAX_LEASE_COUNT = 10_000_000;

/**
 * A confirmed lease: `count` IDs as inclusive, increasing, non-overlapping runs `[start0, end0, start1, end1, …]`,
 * each run's IDs `stride` apart (1; a region of R answers R: its IDs are n × R + region).
 */
export interface Lease {
  count: number;
  bounds: bigint[];
  stride: number;
  /** How long from the request the IDs may be handed out (the node's LEAF_RANGE_LEASE_VALID_MS); null: no limit. */
  validMs: number | null;
}

/** The most regions a fleet may have (LEAF_REGIONS), so the largest stride a lease may carry. */
const MAX_STRIDE = 1024;

/** A decimal ID as the service writes it: no sign, no leading zeros, no exponent. */
const DECIMAL = /^(0|[1-9][0-9]{0,18})$/;

function bad(message: string): LeafClientError {
  return new LeafClientError('bad_response', message, 200);
}

function parseId(value: unknown, where: string): bigint {
  if (typeof value !== 'string' || !DECIMAL.test(value)) throw bad(`${where} is not a decimal string`);
  const id = BigInt(value);
  if (id > MAX_ID) throw bad(`${where} is above 2^63-1`);
  return id;
}

/** Confirms a range answer, or throws `bad_response`: a lease not exactly as asked is dropped whole. */
export function parseLease(text: string, tag: string, count: number): Lease {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw bad('the lease is not JSON');
  }
  const {
    tag: answeredTag,
    count: answeredCount,
    stride = 1,
    ranges,
    validMs = null,
  } = (body ?? {}) as { tag?: unknown; count?: unknown; stride?: unknown; ranges?: unknown; validMs?: unknown };
  if (validMs !== null && (!Number.isSafeInteger(validMs) || (validMs as number) < 1))
    throw bad("the lease's validMs is not a positive integer");
  if (answeredTag !== tag) throw bad(`the lease is for tag ${JSON.stringify(answeredTag)}, not "${tag}"`);
  if (answeredCount !== count) throw bad(`the lease holds ${String(answeredCount)} IDs, not the ${count} asked for`);
  if (!Array.isArray(ranges) || ranges.length === 0 || ranges.length > count)
    throw bad('the lease has no usable ranges');
  if (!Number.isInteger(stride) || (stride as number) < 1 || (stride as number) > MAX_STRIDE)
    throw bad(`the lease's stride is not an integer from 1 to ${MAX_STRIDE}`);
  const step = BigInt(stride as number);
  const bounds: bigint[] = [];
  let total = 0n;
  let previousEnd = -1n;
  ranges.forEach((range: { start?: unknown; end?: unknown } | null, i) => {
    const start = parseId(range?.start, `ranges[${i}].start`);
    const end = parseId(range?.end, `ranges[${i}].end`);
    if (end < start) throw bad(`ranges[${i}] ends before it starts`);
    if (start <= previousEnd) throw bad(`ranges[${i}] overlaps or precedes the range before it`);
    if ((end - start) % step !== 0n) throw bad(`ranges[${i}] does not end on its stride`);
    bounds.push(start, end);
    total += (end - start) / step + 1n;
    previousEnd = end;
  });
  if (total !== BigInt(count)) throw bad(`the ranges hold ${total} IDs, not ${count}`);
  return { count, bounds, stride: stride as number, validMs: validMs as number | null };
}

/** Confirms a batch answer `{"tag","ids":[…]}` of exactly `count` increasing IDs, or throws `bad_response`. */
/** A batch's IDs; `increasing` false for an opaque tag's (permuted, so in no order, but never one twice). */
export function parseIds(text: string, tag: string, count: number, increasing = true): bigint[] {
  let body: { tag?: unknown; ids?: unknown };
  try {
    body = (JSON.parse(text) ?? {}) as { tag?: unknown; ids?: unknown };
  } catch {
    throw bad('the answer is not JSON');
  }
  if (body.tag !== tag) throw bad(`the answer is for tag ${JSON.stringify(body.tag)}, not "${tag}"`);
  if (!Array.isArray(body.ids) || body.ids.length !== count) throw bad(`the answer does not hold ${count} IDs`);
  const ids = body.ids.map((id, i) => parseId(id, `ids[${i}]`));
  if (!increasing) {
    if (new Set(ids).size !== ids.length) throw bad('the answer holds an ID twice');
    return ids;
  }
  for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) throw bad(`ids[${i}] is not above the one before`);
  return ids;
}

/** An opaque tag's batch, which the client holds like a lease: its IDs and how long from asking they may go out. */
export function parseBatch(text: string, tag: string, count: number): { ids: bigint[]; validMs: number | null } {
  const ids = parseIds(text, tag, count, false);
  const { validMs = null } = JSON.parse(text) as { validMs?: unknown };
  if (validMs !== null && (!Number.isSafeInteger(validMs) || (validMs as number) < 1))
    throw bad("the batch's validMs is not a positive integer");
  return { ids, validMs: validMs as number | null };
}

/** The `{"error":{"code","message"}}` of a non-200 answer, or a `bad_response` naming the status. */
export function parseErrorAnswer(status: number, text: string): LeafClientError {
  try {
    const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof error?.code === 'string') {
      return new LeafClientError(error.code, typeof error.message === 'string' ? error.message : error.code, status);
    }
  } catch {
    // Not JSON (a proxy's page, a cut-off body): named by its status below.
  }
  return new LeafClientError('bad_response', `HTTP ${status} without a Leaf error body`, status);
}

/** Confirms an ordering answer `{"version","strict":[…],"vouchMs","pollMs"}`, or throws `bad_response`. */
export function parseOrdering(text: string): OrderingAnswer {
  let body: Partial<Record<keyof OrderingAnswer, unknown>>;
  try {
    body = (JSON.parse(text) ?? {}) as typeof body;
  } catch {
    throw bad('the ordering answer is not JSON');
  }
  const { version, strict, vouchMs, pollMs } = body;
  const whole = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
  if (!whole(version) || !whole(vouchMs) || !whole(pollMs) || vouchMs < 1 || pollMs < 1)
    throw bad('the ordering answer lacks its version, vouchMs or pollMs');
  if (!Array.isArray(strict) || !strict.every((t) => typeof t === 'string'))
    throw bad('the ordering answer lacks its strict tags');
  return { version, strict: strict as string[], vouchMs, pollMs };
}
