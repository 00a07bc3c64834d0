/** leaf_claim statements, written once for every dialect (SQLite runs them too); docs/design.md#ids-that-tell-when. */
import { type SQL, sql } from 'drizzle-orm';
import {
  CLOCK_GRAIN_MS,
  CLOSE_SERVING_FIRST,
  CLOSE_TAG,
  type ClaimLogValues,
  type Claimer,
} from '../../claims/claimNote';
import type { LoggedClaim } from '../../claims/claimLogStore';

const CLAIM = sql.identifier('leaf_claim');

/** A BIGINT read as decimal text: drivers round values beyond 2^53 when they read numbers. */
export type TextOf = (column: SQL) => SQL;

/** The claim's row; `nowMs` the database clock, read inside the claim's transaction. */
export function insertClaimSql({ bizTag, first, last, note }: ClaimLogValues, nowMs: SQL): SQL {
  return sql`INSERT INTO ${CLAIM} (biz_tag, first_id, last_id, claimed_at, kind, claimer, instance, serving_first,
      leased_max, tail_ms, region, regions)
    VALUES (${bizTag}, ${first}, ${last}, ${nowMs}, ${note.kind}, ${note.claimer}, ${note.instance},
      ${note.servingFirst}, ${note.leasedMax}, ${note.tailMs}, ${note.region}, ${note.regions})`;
}

/** A stopped process's one row: every segment it claimed is served no more (leases: `tail_ms` after; what it leased, unknown). */
export function insertCloseSql(c: Claimer, nowMs: SQL): SQL {
  return sql`INSERT INTO ${CLAIM} (biz_tag, first_id, last_id, claimed_at, kind, claimer, instance, serving_first,
      tail_ms, region, regions)
    VALUES (${CLOSE_TAG}, 0, 0, ${nowMs}, 'close', ${c.claimer}, ${c.instance}, ${CLOSE_SERVING_FIRST}, ${c.tailMs},
      ${c.region}, ${c.regions})`;
}

/** The rows of the same process that say a segment `s` is served no more: its serving segment starts past it. */
function witnesses(select: SQL): SQL {
  return sql`(SELECT ${select} FROM ${CLAIM} r
    WHERE r.instance = s.instance AND (r.biz_tag = s.biz_tag OR r.biz_tag = ${CLOSE_TAG})
      AND r.serving_first > s.last_id AND r.claimed_at >= s.claimed_at)`;
}

/** When a segment's claimer stopped serving it: the first witness. A lease's IDs leave the claimer at once. */
function retiredAtSql(): SQL {
  return sql`CASE WHEN s.kind = 'lease' THEN s.claimed_at ELSE ${witnesses(sql`MIN(r.claimed_at)`)} END`;
}

/**
 * How long after that its IDs may still be handed out: a lease's validity if any of them went to a lease (the first
 * witness's leased_max reaches it; leased_max only grows, so the smallest is the first's; a close row's is unknown).
 */
function tailSql(): SQL {
  return sql`CASE WHEN s.kind = 'lease' THEN s.tail_ms
    WHEN COALESCE(${witnesses(sql`MIN(r.leased_max)`)}, s.first_id) >= s.first_id THEN s.tail_ms ELSE 0 END`;
}

const RAW = sql`s.biz_tag, s.first_id, s.last_id, s.claimed_at, s.kind, s.claimer, s.instance, s.region, s.regions`;

/** The columns of `t` (the claim and its retired_at), the big ones as text. */
function columns(t: SQL, text: TextOf): SQL {
  const col = (name: string) => sql`${t}.${sql.identifier(name)}`;
  return sql`${col('biz_tag')} AS biz_tag, ${text(col('first_id'))} AS first_id, ${text(col('last_id'))} AS last_id,
    ${text(col('claimed_at'))} AS claimed_at, ${col('kind')} AS kind, ${col('claimer')} AS claimer,
    ${col('instance')} AS instance, ${text(col('tail_ms'))} AS tail_ms, ${col('region')} AS region,
    ${col('regions')} AS regions, ${text(col('retired_at'))} AS retired_at`;
}

const LIVE = sql`live`;

/** Claims made by `toMs` whose IDs can still have been handed out at `fromMs`, by region and first position. */
export function liveBetweenSql(bizTag: string, fromMs: number, toMs: number, text: TextOf): SQL {
  return sql`SELECT ${columns(LIVE, text)} FROM (SELECT ${RAW}, ${retiredAtSql()} AS retired_at, ${tailSql()} AS tail_ms
      FROM ${CLAIM} s WHERE s.biz_tag = ${bizTag} AND s.kind <> 'close' AND s.claimed_at <= ${toMs}) live
    WHERE live.retired_at IS NULL OR live.retired_at + live.tail_ms + ${CLOCK_GRAIN_MS} >= ${fromMs}
    ORDER BY live.region, live.first_id, live.claimed_at`;
}

/** Claims whose positions include `position` in numbering (`region`, `regions`). */
export function containingSql(bizTag: string, position: bigint, region: number, regions: number, text: TextOf): SQL {
  return sql`SELECT ${columns(LIVE, text)} FROM (SELECT ${RAW}, ${retiredAtSql()} AS retired_at, ${tailSql()} AS tail_ms
      FROM ${CLAIM} s WHERE s.biz_tag = ${bizTag} AND s.kind <> 'close' AND s.region = ${region} AND s.regions = ${regions}
        AND s.first_id <= ${position} AND s.last_id >= ${position}) live
    ORDER BY live.claimed_at`;
}

/** The numberings the tag's rows were written in, and the oldest row kept. */
export function numberingsSql(bizTag: string, text: TextOf): SQL {
  return sql`SELECT region, regions, ${text(sql`MIN(claimed_at)`)} AS oldest FROM ${CLAIM}
    WHERE biz_tag = ${bizTag} AND kind <> 'close' GROUP BY region, regions`;
}

/**
 * Rows older than `beforeMs` that can serve nothing any more: a segment retired before it (plus its tail), a lease
 * past its tail, a close row with no claim of its process left. A live claim is kept however old.
 */
export function pruneClaimsSql(beforeMs: number): SQL {
  return sql`DELETE FROM ${CLAIM} WHERE id IN (SELECT id FROM (SELECT s.id FROM ${CLAIM} s
    WHERE s.kind <> 'close' AND s.claimed_at < ${beforeMs} AND (${retiredAtSql()}) + (${tailSql()}) + ${CLOCK_GRAIN_MS} < ${beforeMs}) old)`;
}

export function pruneClosesSql(beforeMs: number): SQL {
  return sql`DELETE FROM ${CLAIM} WHERE id IN (SELECT id FROM (SELECT c.id FROM ${CLAIM} c WHERE c.kind = 'close'
    AND c.claimed_at < ${beforeMs} AND NOT EXISTS (SELECT 1 FROM ${CLAIM} s WHERE s.instance = c.instance
      AND s.kind <> 'close')) old)`;
}

export interface RawClaimRow {
  biz_tag: string;
  first_id: string | number;
  last_id: string | number;
  claimed_at: string | number;
  kind: string;
  claimer: string;
  instance: string;
  tail_ms: string | number;
  region: string | number;
  regions: string | number;
  retired_at: string | number | null;
}

export function loggedClaim(r: RawClaimRow): LoggedClaim {
  return {
    bizTag: r.biz_tag,
    first: BigInt(r.first_id),
    last: BigInt(r.last_id),
    claimedAt: Number(r.claimed_at),
    kind: r.kind === 'lease' ? 'lease' : 'segment',
    claimer: r.claimer,
    instance: r.instance,
    tailMs: Number(r.tail_ms),
    region: Number(r.region),
    regions: Number(r.regions),
    retiredAt: r.retired_at === null ? null : Number(r.retired_at),
  };
}

/** The position of `id` in numbering (`region`, `regions`), or null when the ID is not of it. */
export function positionIn(id: bigint, region: number, regions: number): bigint | null {
  const offset = id - BigInt(region);
  return offset >= 0n && offset % BigInt(regions) === 0n ? offset / BigInt(regions) : null;
}

export interface RawNumbering {
  region: string | number;
  regions: string | number;
  oldest: string | number | null;
}

/** The oldest of the numberings' oldest rows. */
export function oldestOf(rows: readonly RawNumbering[]): number | null {
  const times = rows.flatMap((r) => (r.oldest === null ? [] : [Number(r.oldest)]));
  return times.length === 0 ? null : Math.min(...times);
}
