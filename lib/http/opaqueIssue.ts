/**
 * The ID routes for opaque tags (lib/opaque): the engine's IDs, permuted. A tag's encoding is read once per process,
 * after the engine claimed a segment of it (opaqueTags.ts says why that order cannot miss it); until then the IDs
 * are taken first and written once it is known.
 */
import { opaqueRangeRefused } from '../opaque/encoding';
import type { OpaqueRenderer } from '../opaque/opaqueRenderer';
import type { OpaqueTags } from '../opaque/opaqueTags';
import type { IdRanges } from '../segment/idRanges';
import type { Id } from '../segment/id';
import type { SegmentEngine } from '../segment/engine';
import type { RegionStride } from '../segment/regionIds';
import { type Answer, jsonText } from './answer';
import { batch, lease, single } from './idBodies';

interface OpaqueRuntime {
  segments: SegmentEngine;
  opaque?: OpaqueTags;
  stride?: RegionStride | null;
  /** LEAF_RANGE_LEASE_VALID_MS: an opaque batch is @leaf-ts/client's lease (it holds it), so it says how long. */
  leaseValidMs?: number;
}

/**
 * An opaque tag's batch is taken as held: `@leaf-ts/client` keeps it in memory (an opaque tag has no range lease),
 * so the claim log must count its segments as leased from (docs/design.md#ids-that-tell-when).
 */
function takeBatch(rt: OpaqueRuntime, bizTag: string, count: number): IdRanges | Promise<IdRanges> {
  return rt.segments.takeRanges(bizTag, count, true);
}

/**
 * An opaque tag's answer, or the first answer of a tag whose encoding this process has not read; null for a tag
 * known plain (the caller serves it as ever: one Map lookup more on the hot path).
 */
export function opaqueAnswer(
  rt: OpaqueRuntime,
  bizTag: string,
  count: number,
  plain: boolean,
): Answer | Promise<Answer> | null {
  const opaque = rt.opaque;
  if (opaque === undefined) return null;
  const renderer = opaque.of(bizTag);
  if (renderer === null) return null;
  if (renderer !== undefined) return permuted(rt, renderer, bizTag, count, plain);
  // Not read yet: the IDs first (a claimed segment proves the tag's rows committed), then the encoding.
  const ids = count === 0 ? rt.segments.nextId(bizTag) : takeBatch(rt, bizTag, count);
  return Promise.resolve(ids).then((taken) =>
    opaque.read(bizTag).then((r) => {
      if (count === 0) {
        const id = taken as Id;
        return r === null ? single(bizTag, id, plain, rt.stride) : single(bizTag, r.one(id, rt.stride), plain);
      }
      const ranges = taken as IdRanges;
      return r === null ? batch(bizTag, ranges, rt.stride) : permutedBatch(rt, bizTag, r, ranges);
    }),
  );
}

/** A range lease (or an owner's runs) of a tag: refused for an opaque tag, whose IDs form no runs. */
export function opaqueLease(
  rt: OpaqueRuntime,
  bizTag: string,
  take: () => IdRanges | Promise<IdRanges>,
): Answer | Promise<Answer> | null {
  const opaque = rt.opaque;
  if (opaque === undefined) return null;
  const renderer = opaque.of(bizTag);
  if (renderer === null) return null;
  if (renderer !== undefined) throw opaqueRangeRefused(bizTag);
  return Promise.resolve(take()).then((r) =>
    opaque.read(bizTag).then((known) => {
      // Leased before it was known opaque: those IDs are a gap.
      if (known !== null) throw opaqueRangeRefused(bizTag);
      return lease(bizTag, r, rt.stride);
    }),
  );
}

function permuted(
  rt: OpaqueRuntime,
  renderer: OpaqueRenderer,
  bizTag: string,
  count: number,
  plain: boolean,
): Answer | Promise<Answer> {
  const { segments, stride } = rt;
  if (count === 0) {
    const id = segments.nextId(bizTag);
    if (typeof id !== 'object') return single(bizTag, renderer.one(id, stride), plain);
    return id.then((v) => single(bizTag, renderer.one(v, stride), plain));
  }
  const ranges = takeBatch(rt, bizTag, count);
  if (ranges instanceof Promise) return ranges.then((r) => permutedBatch(rt, bizTag, renderer, r));
  return permutedBatch(rt, bizTag, renderer, ranges);
}

/** The batch body `batch` writes, the IDs permuted: written by the renderer, no string per ID. */
function permutedBatch(rt: OpaqueRuntime, bizTag: string, renderer: OpaqueRenderer, ranges: IdRanges): Answer {
  const end = rt.leaseValidMs === undefined ? '"]}' : '"],"validMs":' + rt.leaseValidMs + '}';
  return jsonText(renderer.manyText(ranges, rt.stride, '{"tag":"' + bizTag + '","ids":["', '","', end));
}
