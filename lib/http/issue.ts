/** What each ID route asks of the engines, and its answer (idBodies.ts): synchronously when the buffers serve. */
import { LeafError } from '../errors';
import { formatNotFound } from '../format/rules';
import type { FormatEngine } from '../format/engine';
import type { Relayed } from '../ordered/forwarder';
import { type OrderedTags, notOwner, strictRangeRefused } from '../ordered/orderedTags';
import { firstId } from '../segment/idRanges';
import type { SegmentEngine } from '../segment/engine';
import type { SnowflakeNode } from '../snowflake/node';
import type { LeafStore } from '../store/leafStore';
import type { RegionStride } from '../segment/regionIds';
import type { RegionInfo } from '../settings/region';
import type { OpaqueTags } from '../opaque/opaqueTags';
import type { Answer } from './answer';
import { opaqueAnswer, opaqueLease } from './opaqueIssue';
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
  /** Which tags are opaque (lib/opaque): absent where none can be (unit tests of other concerns). */
  opaque?: OpaqueTags;
  /** LEAF_RANGE_LEASE_VALID_MS, told to each lease's holder; absent: leases carry no limit (unit tests). */
  leaseValidMs?: number;
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
  // A strict tag is never opaque (refused at creation and at the change); any other may be.
  const serve = () => serveSegment(rt.segments, bizTag, count, plain, rt.stride);
  const serveAny = () => opaqueAnswer(rt, bizTag, count, plain) ?? serve();
  if (ordered === undefined) return serveAny();
  if (ordered.size === 0 || !ordered.isStrict(bizTag)) return ordinary(ordered, bizTag, serveAny());
  // The owner serves a strict tag as any tag, synchronously; the others go through lib/ordered.
  const epoch = ordered.servingEpoch(bizTag);
  if (epoch !== null) return served(ordered, bizTag, serve, epoch);
  return ordered.route({ bizTag, count, authorization, ownerOnly: false }).then((route) => {
    switch (route.kind) {
      case 'serve':
        return served(ordered, bizTag, serve);
      case 'ordinary':
        return ordinary(ordered, bizTag, serveAny());
      case 'ids':
        // The owner's IDs, read back as this region's positions, rendered here as the IDs they are.
        return count === 0 ? single(bizTag, firstId(route.ids), plain, rt.stride) : batch(bizTag, route.ids, rt.stride);
      case 'answer':
        return relayedAnswer(route.relayed);
    }
  });
}

/**
 * An owner's answer, the one gate of strict tags: IDs are taken while this node holds a live lease by its own clock,
 * and IDs that waited for a segment are checked again when they come — under the same lease, else they are a gap and
 * the request a retryable `not_owner` (docs/design.md#ordered-tags).
 */
function served(
  ordered: OrderedTags,
  bizTag: string,
  serve: () => Answer | Promise<Answer>,
  epoch = ordered.servingEpoch(bizTag),
): Answer | Promise<Answer> {
  if (epoch === null) throw notOwner(bizTag);
  const answer = serve();
  if (!(answer instanceof Promise)) return answer;
  return answer.then((a) => {
    ordered.confirmServing(bizTag, epoch);
    return a;
  });
}

/**
 * An ordinary tag's answer: one that waited for a segment may come after this node applied a change to strict (and
 * acknowledged it): then its IDs are a gap and the request a retryable `not_owner` (docs/design.md#ordered-tags).
 */
function ordinary(ordered: OrderedTags, bizTag: string, answer: Answer | Promise<Answer>): Answer | Promise<Answer> {
  if (!(answer instanceof Promise)) return answer;
  return answer.then((a) => {
    if (ordered.isStrict(bizTag)) throw notOwner(bizTag);
    return a;
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
  return ownerOnly(
    rt,
    bizTag,
    count,
    authorization,
    () => opaqueAnswer(rt, bizTag, count, false) ?? serveSegment(rt.segments, bizTag, count, false, rt.stride),
  );
}

/**
 * `/api/id/owner/{tag}/runs?count=N`: as the owner route, the IDs in a lease's shape (with regions, runs stepped by
 * the stride): a public route answers IDs, never positions. A relaying node reads them back as its positions.
 */
export function issueOwnedRuns(
  rt: IdRuntime,
  bizTag: string,
  count: number,
  _plain: boolean,
  authorization?: string | null,
): Answer | Promise<Answer> {
  return ownerOnly(rt, bizTag, count, authorization, () => {
    const refused = opaqueLease(rt, bizTag, () => rt.segments.takeRanges(bizTag, count));
    if (refused !== null) return refused;
    const ranges = rt.segments.takeRanges(bizTag, count);
    return ranges instanceof Promise
      ? ranges.then((r) => lease(bizTag, r, rt.stride))
      : lease(bizTag, ranges, rt.stride);
  });
}

function ownerOnly(
  rt: IdRuntime,
  bizTag: string,
  count: number,
  authorization: string | null | undefined,
  serve: () => Answer | Promise<Answer>,
): Answer | Promise<Answer> {
  const ordered = rt.ordered;
  if (ordered === undefined) return serve();
  if (!ordered.isStrict(bizTag)) return ordinary(ordered, bizTag, serve());
  const epoch = ordered.servingEpoch(bizTag);
  if (epoch !== null) return served(ordered, bizTag, serve, epoch);
  return ordered.route({ bizTag, count, authorization, ownerOnly: true }).then((route) => {
    if (route.kind === 'serve') return served(ordered, bizTag, serve);
    if (route.kind === 'ordinary') return ordinary(ordered, bizTag, serve());
    throw new LeafError('internal_error', 'The owner route never relays.');
  });
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

export function leaseSegment(rt: IdRuntime, bizTag: string, count: number): Answer | Promise<Answer> {
  const { segments: engine, ordered, stride, leaseValidMs } = rt;
  if (ordered?.isStrict(bizTag) === true) throw strictRangeRefused(bizTag);
  const opaque = opaqueLease(rt, bizTag, () => engine.leaseRanges(bizTag, count));
  if (opaque instanceof Promise)
    return opaque.then((a) => {
      if (ordered?.isStrict(bizTag) === true) throw strictRangeRefused(bizTag);
      return a;
    });
  if (opaque !== null) return opaque;
  const ranges = engine.leaseRanges(bizTag, count);
  if (!(ranges instanceof Promise)) return lease(bizTag, ranges, stride, leaseValidMs);
  // A lease that waited is refused whole if the tag turned strict meanwhile (its IDs are a gap).
  return ranges.then((r) => {
    if (ordered?.isStrict(bizTag) === true) throw strictRangeRefused(bizTag);
    return lease(bizTag, r, stride, leaseValidMs);
  });
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

export function snowflakeOff(): LeafError {
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
