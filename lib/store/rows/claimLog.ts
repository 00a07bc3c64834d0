/** leaf_claim statements, written once for every dialect (SQLite runs them too); docs/design.md#ids-that-tell-when. */
import { type SQL, sql } from 'drizzle-orm';
import type { ClaimLogStore } from '../../claims/claimLogStore';
import { CLOSE_SERVING_FIRST, CLOSE_TAG, type ClaimNote, type Claimer } from '../../claims/claimNote';
import { positionOf } from '../../claims/numbering';
import { MAX_ID } from '../../segment/id';
import { DEFAULT_SEMANTICS, FLEET_DEFAULT_KEY } from '../../segment/semantics';
import type { ClaimRow } from '../../claims/retirement';

const CLAIM = sql.identifier('leaf_claim');

/** A BIGINT read as decimal text: drivers round values beyond 2^53 when they read numbers. */
export type TextOf = (column: SQL) => SQL;

/** The stored routine's 13 arguments (drizzle/postgres/0008, drizzle/mysql/0012), in its order. */
export function loggedClaimArgs(bizTag: string, added: number, note: ClaimNote): unknown[] {
  return [
    bizTag,
    added,
    MAX_ID - BigInt(added),
    FLEET_DEFAULT_KEY,
    DEFAULT_SEMANTICS,
    note.kind,
    note.claimer,
    note.instance,
    note.servingFirst === null ? null : String(note.servingFirst),
    String(note.leasedMax),
    note.tailMs,
    note.region,
    note.regions,
  ];
}

/** A stopped process's one row: every segment it claimed is served no more (what it leased: unknown, so tails stay). */
export function insertCloseSql(c: Claimer, nowMs: SQL): SQL {
  return sql`INSERT INTO ${CLAIM} (biz_tag, first_id, last_id, claimed_at, kind, claimer, instance, serving_first,
      tail_ms, region, regions)
    VALUES (${CLOSE_TAG}, 0, 0, ${nowMs}, 'close', ${c.claimer}, ${c.instance}, ${CLOSE_SERVING_FIRST}, ${c.tailMs},
      ${c.region}, ${c.regions})`;
}

function columns(text: TextOf): SQL {
  return sql`id, biz_tag, ${text(sql`first_id`)} AS first_id, ${text(sql`last_id`)} AS last_id,
    ${text(sql`claimed_at`)} AS claimed_at, kind, claimer, instance, ${text(sql`serving_first`)} AS serving_first,
    ${text(sql`leased_max`)} AS leased_max, tail_ms, region, regions`;
}

export function rowsUpToSql(bizTag: string, toMs: number, text: TextOf): SQL {
  return sql`SELECT ${columns(text)} FROM ${CLAIM}
    WHERE (biz_tag = ${bizTag} OR biz_tag = ${CLOSE_TAG}) AND claimed_at <= ${toMs}`;
}

/** Rows whose positions include `position` in numbering (`region`, `regions`). */
export function holdingSql(bizTag: string, position: bigint, region: number, regions: number, text: TextOf): SQL {
  return sql`SELECT ${columns(text)} FROM ${CLAIM} WHERE biz_tag = ${bizTag} AND region = ${region}
    AND regions = ${regions} AND first_id <= ${position} AND last_id >= ${position}`;
}

/**
 * The first later row of `c`'s process and tag serving past it, and the process's close row: literal bounds, so the
 * index on (biz_tag, instance, claimed_at) walks from the claim to its witness and stops.
 */
export function retirersSql(c: ClaimRow, text: TextOf): SQL[] {
  return [
    sql`SELECT ${columns(text)} FROM ${CLAIM} WHERE biz_tag = ${c.bizTag} AND instance = ${c.instance}
      AND claimed_at >= ${c.claimedAt} AND serving_first > ${c.last} ORDER BY claimed_at, id LIMIT 1`,
    sql`SELECT ${columns(text)} FROM ${CLAIM} WHERE biz_tag = ${CLOSE_TAG} AND instance = ${c.instance} LIMIT 1`,
  ];
}

/**
 * Rows claimed before `beforeMs`, with no index on the time (each would cost every claim a write): ids grow with the
 * clock, so the walk by id stops at the first row at or after it. A row out of that order is only pruned later.
 */
export function rowsBeforeSql(beforeMs: number, text: TextOf): SQL {
  return sql`SELECT ${columns(text)} FROM ${CLAIM} WHERE claimed_at < ${beforeMs} AND id < COALESCE(
    (SELECT n.id FROM ${CLAIM} n WHERE n.claimed_at >= ${beforeMs} ORDER BY n.id LIMIT 1), ${Number.MAX_SAFE_INTEGER})`;
}

export function deleteRowsSql(ids: readonly number[]): SQL {
  return sql`DELETE FROM ${CLAIM} WHERE id IN (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )})`;
}

/** The numberings the tag's rows were written in, and the oldest row kept. */
export function numberingsSql(bizTag: string, text: TextOf): SQL {
  return sql`SELECT region, regions, ${text(sql`MIN(claimed_at)`)} AS oldest FROM ${CLAIM}
    WHERE biz_tag = ${bizTag} GROUP BY region, regions`;
}

export interface RawClaimRow {
  id: string | number;
  biz_tag: string;
  first_id: string;
  last_id: string;
  claimed_at: string;
  kind: string;
  claimer: string;
  instance: string;
  serving_first: string | null;
  leased_max: string | null;
  tail_ms: string | number;
  region: string | number;
  regions: string | number;
}

export function claimRow(r: RawClaimRow): ClaimRow {
  return {
    id: Number(r.id),
    bizTag: r.biz_tag,
    first: BigInt(r.first_id),
    last: BigInt(r.last_id),
    claimedAt: Number(r.claimed_at),
    // A kind this version does not know is read as a segment: its IDs are answered, never left out.
    kind: r.kind === 'lease' || r.kind === 'close' ? r.kind : 'segment',
    claimer: r.claimer,
    instance: r.instance,
    servingFirst: r.serving_first === null ? null : BigInt(r.serving_first),
    leasedMax: r.leased_max === null ? null : BigInt(r.leased_max),
    tailMs: Number(r.tail_ms),
    region: Number(r.region),
    regions: Number(r.regions),
  };
}

/** Rows holding `id` and, for each, what retires it: one list, each row once. */
export function uniqueRows(rows: readonly ClaimRow[]): ClaimRow[] {
  return [...new Map(rows.map((r) => [r.id, r])).values()];
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

/** Deletes go in chunks: one statement's parameter list stays small. */
export const DELETE_CHUNK = 500;

/** What the claim log needs of a database: reads, a write answering how many rows it changed, its text and clock. */
export interface ClaimLogDb {
  all<R>(query: SQL): Promise<R[]>;
  run(query: SQL): Promise<number>;
  text: TextOf;
  /** The database clock in whole ms, cut down (the close row's time). */
  nowMs: SQL;
}

/** leaf_claim, written once for every dialect over its ClaimLogDb; the claim's own row is written by its claim. */
export class SqlClaimLog implements ClaimLogStore {
  constructor(private readonly db: ClaimLogDb) {}

  private async rows(query: SQL): Promise<ClaimRow[]> {
    return (await this.db.all<RawClaimRow>(query)).map(claimRow);
  }

  rowsUpTo(bizTag: string, toMs: number): Promise<ClaimRow[]> {
    return this.rows(rowsUpToSql(bizTag, toMs, this.db.text));
  }

  async rowsHolding(bizTag: string, id: bigint): Promise<ClaimRow[]> {
    const { text } = this.db;
    const numberings = await this.db.all<RawNumbering>(numberingsSql(bizTag, text));
    const holding = (
      await Promise.all(
        numberings.map((n) => {
          const position = positionOf(id, Number(n.region), Number(n.regions));
          return position === null
            ? []
            : this.rows(holdingSql(bizTag, position, Number(n.region), Number(n.regions), text));
        }),
      )
    ).flat();
    const retirers = await Promise.all(holding.flatMap((c) => retirersSql(c, text).map((q) => this.rows(q))));
    return uniqueRows([...holding, ...retirers.flat()]);
  }

  rowsBefore(beforeMs: number): Promise<ClaimRow[]> {
    return this.rows(rowsBeforeSql(beforeMs, this.db.text));
  }

  async deleteRows(ids: readonly number[]): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < ids.length; i += DELETE_CHUNK)
      deleted += await this.db.run(deleteRowsSql(ids.slice(i, i + DELETE_CHUNK)));
    return deleted;
  }

  async oldest(bizTag: string): Promise<number | null> {
    return oldestOf(await this.db.all<RawNumbering>(numberingsSql(bizTag, this.db.text)));
  }

  async recordClose(claimer: Claimer): Promise<void> {
    await this.db.run(insertCloseSql(claimer, this.db.nowMs));
  }
}
