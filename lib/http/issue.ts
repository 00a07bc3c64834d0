/** What each ID route asks of the engines, and its answer (idBodies.ts): synchronously when the buffers serve. */
import { LeafError } from '../errors';
import { formatNotFound } from '../format/rules';
import type { FormatEngine } from '../format/engine';
import type { Relayed } from '../ordered/forwarder';
import type { OrderedTags } from '../ordered/orderedTags';
import { firstId } from '../segment/idRanges';
import type { SegmentEngine } from '../segment/engine';
import type { SnowflakeNode } from '../snowflake/node';
import type { LeafStore } from '../store/leafStore';
import { MAX_DATE_MS, MAX_SNOWFLAKE } from '../snowflake/layout';
import type { RegionStride } from '../segment/regionIds';
import type { RegionInfo } from '../settings/region';
import { strictRangeRefused } from '../segment/serveGate';
import { type Answer, jsonOk } from './answer';
import { batch, formattedBatch, formattedSingle, lease, single, snowflakeBatch, snowflakeSingle } from './idBodies';

/** What the ID routes use of a running node (`formats` absent: no formatted tag exists). */
export interface IdRuntime {
  segments: SegmentEngine;
  store: LeafStore;
  snowflake: SnowflakeNode | null;
  formats?: FormatEngine;
  /** Strict tags (lib/ordered): absent where no node runs them (the embedded package, unit tests). */
  ordered?: OrderedTags;
  /** This node's region as its database recorded it; absent where no node runs (the embedded package). */
  region?: RegionInfo;
  /** LEAF_REGIONS > 1: segment positions become IDs n × R + region; absent or null with regions off. */
  stride?: RegionStride | null;
}

/** `/api/id/segment/{tag}` and the Leaf route: a strict tag goes through its owner, any other tag is served here. */
export function issueSegment(
  rt: IdRuntime,
  bizTag: string,
  count: number,
  plain: boolean,
  authorization?: string | null,
): Answer | Promise<Answer> {
  const ordered = rt.ordered;
  // The owner of a strict tag serves it as any tag, synchronously; the others go through lib/ordered.
  if (ordered === undefined || ordered.size === 0 || !ordered.isStrict(bizTag) || ordered.mayServe(bizTag))
    return serveSegment(rt.segments, bizTag, count, plain, rt.stride);
  return ordered.issue({
    bizTag,
    count,
    authorization,
    ownerOnly: false,
    serveHere: () => serveSegment(rt.segments, bizTag, count, plain, rt.stride),
    // The owner answers positions (its /runs route): rendered here, in this region, as the IDs they are.
    fromIds: (ids) => (count === 0 ? single(bizTag, firstId(ids), plain, rt.stride) : batch(bizTag, ids, rt.stride)),
    passOn: relayedAnswer,
  });
}

/** An owner's answer other than the IDs (an error, say), passed on as it came. */
function relayedAnswer(relayed: Relayed): Answer {
  return {
    status: relayed.status,
    headers: { 'content-type': relayed.contentType, 'cache-control': 'no-store' },
    body: relayed.body,
  };
}

/** `/api/id/owner/{tag}`: IDs of a strict tag only from its owner (never relayed again); any other tag as usual. */
export function issueOwned(
  rt: IdRuntime,
  bizTag: string,
  count: number,
  _plain: boolean,
  authorization?: string | null,
): Answer | Promise<Answer> {
  return ownerOnly(rt, bizTag, count, authorization, () => serveSegment(rt.segments, bizTag, count, false, rt.stride));
}

/**
 * `/api/id/owner/{tag}/runs?count=N`: as the owner route, the IDs as runs (a relaying node renders them). With
 * regions these are the region's positions, not IDs: only a node of the same region renders them.
 */
export function issueOwnedRuns(
  rt: IdRuntime,
  bizTag: string,
  count: number,
  _plain: boolean,
  authorization?: string | null,
): Answer | Promise<Answer> {
  return ownerOnly(rt, bizTag, count, authorization, () => {
    const ranges = rt.segments.takeRanges(bizTag, count);
    return ranges instanceof Promise ? ranges.then((r) => lease(bizTag, r)) : lease(bizTag, ranges);
  });
}

function ownerOnly(
  rt: IdRuntime,
  bizTag: string,
  count: number,
  authorization: string | null | undefined,
  serveHere: () => Answer | Promise<Answer>,
): Answer | Promise<Answer> {
  const ordered = rt.ordered;
  if (ordered === undefined || !ordered.isStrict(bizTag) || ordered.mayServe(bizTag)) return serveHere();
  // Never relayed: the answers below are never used.
  return ordered.issue({
    bizTag,
    count,
    authorization,
    ownerOnly: true,
    serveHere,
    fromIds: notRelayed,
    passOn: notRelayed,
  });
}

function notRelayed(): never {
  throw new LeafError('internal_error', 'The owner route never relays.');
}

function serveSegment(
  engine: SegmentEngine,
  bizTag: string,
  count: number,
  plain: boolean,
  stride: RegionStride | null | undefined,
): Answer | Promise<Answer> {
  if (count === 0) {
    const id = engine.nextId(bizTag);
    if (typeof id !== 'object') return single(bizTag, id, plain, stride);
    return id.then((v) => single(bizTag, v, plain, stride));
  }
  const ranges = engine.takeRanges(bizTag, count);
  if (ranges instanceof Promise) return ranges.then((r) => batch(bizTag, r, stride));
  return batch(bizTag, ranges, stride);
}

export function leaseSegment(
  { segments: engine, ordered, stride }: IdRuntime,
  bizTag: string,
  count: number,
): Answer | Promise<Answer> {
  if (ordered?.isStrict(bizTag) === true) throw strictRangeRefused(bizTag);
  const ranges = engine.leaseRanges(bizTag, count);
  if (ranges instanceof Promise) return ranges.then((r) => lease(bizTag, r, stride));
  return lease(bizTag, ranges, stride);
}

export function issueFormatted({ formats }: IdRuntime, bizTag: string, count: number): Answer | Promise<Answer> {
  if (formats === undefined) throw formatNotFound(bizTag);
  if (count === 0) {
    const id = formats.nextId(bizTag);
    return typeof id === 'string' ? formattedSingle(bizTag, id) : id.then((v) => formattedSingle(bizTag, v));
  }
  const ids = formats.takeIds(bizTag, count);
  return ids instanceof Promise ? ids.then((v) => formattedBatch(bizTag, v)) : formattedBatch(bizTag, ids);
}

function snowflakeOff(): LeafError {
  return new LeafError('snowflake_unavailable', 'Snowflake mode is off on this node (LEAF_SNOWFLAKE=off).');
}

export function issueSnowflake(
  { snowflake: node }: IdRuntime,
  _bizTag: string,
  count: number,
  plain: boolean,
): Answer | Promise<Answer> {
  if (node === null) throw snowflakeOff();
  if (count === 0) {
    const id = node.nextId();
    if (typeof id === 'bigint') return snowflakeSingle(id, plain);
    return id.then((v) => snowflakeSingle(v, plain));
  }
  return node.take(count).then(snowflakeBatch);
}

const DECIMAL_ID = /^[0-9]{1,19}$/;

export async function decodeSnowflake(runtime: () => IdRuntime | Promise<IdRuntime>, raw: string): Promise<Answer> {
  if (!DECIMAL_ID.test(raw) || BigInt(raw) > MAX_SNOWFLAKE) {
    throw new LeafError('invalid_id', 'A snowflake ID is a decimal integer from 0 to 9223372036854775807.');
  }
  const { snowflake } = await runtime();
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
    timestamp: new Date(d.timestampMs).toISOString(),
    timestampMs: d.timestampMs,
    region: d.region,
    workerId: d.workerId,
    sequence: d.sequence,
  };
  return jsonOk(body);
}
