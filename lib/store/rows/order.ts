/** leaf_order and leaf_participant rows and statements, written once for every dialect (SQLite runs them too). */
import { type SQL, sql } from 'drizzle-orm';
import type { LeaseTerms, OrderRow, Ordering, OwnerClaim, Participant } from '../../ordered/orderStore';

const ORDER = sql.identifier('leaf_order');
const PARTICIPANT = sql.identifier('leaf_participant');
/** The row holding the fleet's ordering version: not a tag (a tag name never holds `*`). */
export const VERSION_ROW = '*';

/** A leaf_order row as a driver returns it (bigints may come as strings: ms values fit a Number exactly). */
export interface RawOrderRow {
  biz_tag: string;
  ordering: string;
  strict_since: number | string;
  version: number | string;
  complete_at: number | string;
  epoch: number | string;
  owner_node: string | null;
  owner_instance: string | null;
  owner_address: string | null;
  lease_expires_at: number | string;
  acquired_at: number | string;
  db_now: number | string;
}

export function orderFromRaw(r: RawOrderRow): OrderRow {
  return {
    bizTag: r.biz_tag,
    ordering: r.ordering === 'none' ? 'none' : 'strict',
    changedAt: Number(r.strict_since),
    version: Number(r.version),
    completeAt: Number(r.complete_at),
    epoch: Number(r.epoch),
    ownerNode: r.owner_node,
    ownerInstance: r.owner_instance,
    ownerAddress: r.owner_address,
    leaseExpiresAt: Number(r.lease_expires_at),
    acquiredAt: Number(r.acquired_at),
  };
}

/** Every row and the database clock in one statement: one snapshot, so the version row covers the tag rows. */
export const selectOrderRows = (nowMs: SQL): SQL =>
  sql`SELECT o.*, ${nowMs} AS db_now FROM ${ORDER} o ORDER BY biz_tag`;

export const selectNow = (nowMs: SQL): SQL => sql`SELECT ${nowMs} AS db_now`;

/** `FOR UPDATE` on a server; SQLite's writer holds the whole file already (BEGIN IMMEDIATE) and has no such clause. */
const lock = (forUpdate: boolean): SQL => (forUpdate ? sql` FOR UPDATE` : sql``);

/** The version row, locked for the change that raises it (every change takes turns on it). */
export const lockVersionSql = (forUpdate: boolean): SQL =>
  sql`SELECT version FROM ${ORDER} WHERE biz_tag = ${VERSION_ROW}${lock(forUpdate)}`;

/** The version row at `version`, should it be missing (migrations insert it; a hand-made table may lack it). */
export const insertVersionRowSql = (version: number): SQL =>
  sql`INSERT INTO ${ORDER} (biz_tag, ordering, strict_since, version) VALUES (${VERSION_ROW}, 'none', 0, ${version})`;

export const raiseVersionSql = (version: number): SQL =>
  sql`UPDATE ${ORDER} SET version = ${version} WHERE biz_tag = ${VERSION_ROW}`;

/** A tag's row, locked (or its absence) in a change of its ordering. */
export const lockOrderRowSql = (bizTag: string, forUpdate: boolean): SQL =>
  sql`SELECT ordering FROM ${ORDER} WHERE biz_tag = ${bizTag}${lock(forUpdate)}`;

/** A change of ordering as its transaction writes it: read the two locked rows, then run `writes`. */
export interface OrderingPlan {
  before: Ordering;
  after: Ordering;
  /** The fleet version after the change (the one before when nothing changes). */
  version: number;
  writes: SQL[];
}

/**
 * A change of `bizTag`'s ordering, from the version row (`versionRows`, locked) and the tag's own (`tagRows`,
 * locked): the version raised by one, the tag's row written at it. An unchanged ordering writes nothing.
 */
export function planOrdering(
  nowMs: SQL,
  bizTag: string,
  ordering: Ordering,
  versionRows: ReadonlyArray<{ version?: unknown }>,
  tagRows: ReadonlyArray<{ ordering?: unknown }>,
): OrderingPlan {
  const version = Number(versionRows[0]?.version ?? 0);
  const before = orderingOf(tagRows as Array<{ ordering: string }>);
  if (before === ordering) return { before, after: ordering, version, writes: [] };
  const next = version + 1;
  const writes = [versionRows.length === 0 ? insertVersionRowSql(next) : raiseVersionSql(next)];
  if (ordering === 'none') writes.push(orderingNoneSql(nowMs, bizTag, next));
  else if (tagRows.length === 0) writes.push(insertStrictSql(nowMs, bizTag, next));
  else writes.push(strictAgainSql(nowMs, bizTag, next));
  return { before, after: ordering, version: next, writes };
}

/**
 * A change to strict: pending until every process acknowledged `version`, a new epoch that no earlier owner holds,
 * no owner. The lease's expiry stays: an owner of before, paused, is waited out as after any handover.
 */
export function strictAgainSql(nowMs: SQL, bizTag: string, version: number): SQL {
  return sql`UPDATE ${ORDER} SET ordering = 'strict', strict_since = ${nowMs}, version = ${version}, complete_at = 0,
      epoch = epoch + 1, owner_node = NULL, owner_instance = NULL, owner_address = NULL
    WHERE biz_tag = ${bizTag}`;
}

export const insertStrictSql = (nowMs: SQL, bizTag: string, version: number): SQL =>
  sql`INSERT INTO ${ORDER} (biz_tag, ordering, strict_since, version, complete_at, epoch, lease_expires_at, acquired_at)
    VALUES (${bizTag}, 'strict', ${nowMs}, ${version}, 0, 0, 0, 0)`;

/** Back to segment order: the row stays, with its epoch and lease, so a later change to strict still waits them out. */
export const orderingNoneSql = (nowMs: SQL, bizTag: string, version: number): SQL =>
  sql`UPDATE ${ORDER} SET ordering = 'none', strict_since = ${nowMs}, version = ${version}, complete_at = 0
    WHERE biz_tag = ${bizTag}`;

export const deleteOrderSql = (bizTag: string): SQL => sql`DELETE FROM ${ORDER} WHERE biz_tag = ${bizTag}`;

/** What a change found: no row is `none` (the tag was never strict). */
export function orderingOf(rows: ReadonlyArray<{ ordering: string }>): Ordering {
  return rows.length === 0 || rows[0]?.ordering === 'none' ? 'none' : 'strict';
}

/**
 * The change to strict at `version` completes when no process is left that has not acknowledged it: a process
 * registers before its first read, so one that served the tag from a read before the change is listed here.
 */
export function completeStrictSql(nowMs: SQL, bizTag: string, version: number): SQL {
  return sql`UPDATE ${ORDER} SET complete_at = ${nowMs}
    WHERE biz_tag = ${bizTag} AND ordering = 'strict' AND version = ${version} AND complete_at = 0
      AND NOT EXISTS (SELECT 1 FROM ${PARTICIPANT} p WHERE p.acked_version < ${version})`;
}

/**
 * The epoch after `seenEpoch`, when the change to strict completed, and the old lease expired `marginMs` ago (a
 * release set it to 0) or is this instance's own. A compare-and-set on the epoch: two nodes that saw the same row
 * cannot both win.
 */
export function acquireOwnerSql(nowMs: SQL, bizTag: string, c: OwnerClaim, t: LeaseTerms, seenEpoch: number): SQL {
  return sql`UPDATE ${ORDER} SET epoch = ${seenEpoch + 1}, owner_node = ${c.nodeId},
      owner_instance = ${c.instanceId}, owner_address = ${c.address}, lease_expires_at = ${nowMs} + ${t.leaseMs},
      acquired_at = ${nowMs}
    WHERE biz_tag = ${bizTag} AND epoch = ${seenEpoch} AND ordering = 'strict' AND complete_at > 0
      AND (lease_expires_at + ${t.marginMs} < ${nowMs} OR owner_instance = ${c.instanceId})`;
}

/** Only a lease still live on the database's clock is extended: an expired one may have a successor already. */
export function renewOwnerSql(nowMs: SQL, bizTag: string, instanceId: string, epoch: number, leaseMs: number): SQL {
  return sql`UPDATE ${ORDER} SET lease_expires_at = ${nowMs} + ${leaseMs}
    WHERE biz_tag = ${bizTag} AND owner_instance = ${instanceId} AND epoch = ${epoch} AND lease_expires_at >= ${nowMs}`;
}

export function releaseOwnerSql(bizTag: string, instanceId: string, epoch: number): SQL {
  return sql`UPDATE ${ORDER} SET lease_expires_at = 0
    WHERE biz_tag = ${bizTag} AND owner_instance = ${instanceId} AND epoch = ${epoch}`;
}

/** A leaf_participant row as a driver returns it. */
export interface RawParticipantRow {
  instance_id: string;
  kind: string;
  label: string;
  host: string;
  proc_key: string;
  acked_version: number | string;
  started_at: number | string;
  seen_at: number | string;
}

export function participantFromRaw(r: RawParticipantRow): Participant {
  return {
    instanceId: r.instance_id,
    kind: r.kind === 'embedded' ? 'embedded' : 'node',
    label: r.label,
    host: r.host,
    procKey: r.proc_key,
    ackedVersion: Number(r.acked_version),
    startedAt: Number(r.started_at),
    seenAt: Number(r.seen_at),
  };
}

/** The version only grows; seen_at is refreshed either way. */
export const ackParticipantSql = (nowMs: SQL, instanceId: string, version: number): SQL =>
  sql`UPDATE ${PARTICIPANT} SET acked_version = CASE WHEN acked_version < ${version} THEN ${version} ELSE acked_version END,
      seen_at = ${nowMs}
    WHERE instance_id = ${instanceId}`;

export const deleteParticipantSql = (instanceId: string): SQL =>
  sql`DELETE FROM ${PARTICIPANT} WHERE instance_id = ${instanceId}`;

export const selectParticipantsSql = (): SQL => sql`SELECT * FROM ${PARTICIPANT} ORDER BY started_at, instance_id`;

/** Rows silent for `silentMs` by the database's clock: their processes are long gone (LEAF_NODE_PRUNE_MS). */
export const pruneParticipantsSql = (nowMs: SQL, silentMs: number): SQL =>
  sql`DELETE FROM ${PARTICIPANT} WHERE seen_at < ${nowMs} - ${silentMs}`;
