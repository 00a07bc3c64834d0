/**
 * The HTTP rows of the table: which server, which route, what its responses carry, how their order is checked
 * and how its DB writes are known; and the groups they are measured in (single-ID rows, then batch rows).
 */
import { progress } from './config';
import { holdSlowClients } from './slowClients';
import {
  BATCH,
  SLOW_CLIENTS,
  FORMAT_PATTERN,
  FORMAT_TAG,
  OPAQUE_TAG,
  ORDERED_TAG,
  TAG,
  WIDE_MAX_ID,
  WIDE_TAG,
} from './config';
import { type HttpRow, type Writes, httpRow } from './measure';
import type { Server } from './servers';

export interface RowServers {
  bare: Server;
  fast: Server;
  plain: Server;
  mariaLeaf: Server;
  pgLeaf: Server;
  galeraLeaf: Server;
  cluster: Server;
  autoinc: Server;
  flickr: Server;
  redisAlt: Server;
  uuid: Server;
}

const seg = `/api/id/segment/${TAG}`;
const segBatch = `${seg}?count=${BATCH}`;
const loads: Writes = { kind: 'loads' };

/** The SQLite fast lane's single and batch rows: the reference of most ratios. */
export function fastRows(fast: Server): Record<string, HttpRow> {
  return {
    'fast-single': httpRow(
      fast,
      'fast-single',
      'leaf-ts fast lane, SQLite, `GET /api/id/segment/demo`',
      seg,
      'seq',
      'gap',
      loads,
    ),
    'fast-batch': httpRow(
      fast,
      'fast-batch',
      `leaf-ts fast lane, SQLite, \`?count=${BATCH}\``,
      segBatch,
      'batch',
      'gap',
      loads,
    ),
  };
}

/**
 * The single row again on the same server while SLOW_CLIENTS connections each hold a login request open (headers and
 * 10 of 100 body bytes): what a slow client costs everyone else once LEAF_REQUEST_TIMEOUT_MS bounds it.
 */
export function slowClientRows(fast: Server): Record<string, HttpRow> {
  const row = httpRow(
    fast,
    'slow-single',
    `leaf-ts fast lane, SQLite, \`GET /api/id/segment/${TAG}\` with ${SLOW_CLIENTS} slow clients held open`,
    seg,
    'seq',
    'gap',
    loads,
  );
  row.around = async () => {
    const held = await holdSlowClients(fast.base, SLOW_CLIENTS);
    return () => {
      const s = held.stop();
      progress(
        `slow-single: ${s.opened} slow connections opened, ${s.answered408} answered 408 and closed, ${s.closedWithout408} closed otherwise`,
      );
    };
  };
  return { 'slow-single': row };
}

/** The same two rows, same server and plumbing, for a tag whose IDs lie above 2^53 (max_id 10^17). */
export function wideRows(fast: Server): Record<string, HttpRow> {
  const wide = `/api/id/segment/${WIDE_TAG}`;
  const above = `IDs above 2^53 (tag \`${WIDE_TAG}\`, max_id ${WIDE_MAX_ID})`;
  return {
    'wide-single': httpRow(
      fast,
      'wide-single',
      `leaf-ts fast lane, SQLite, single, ${above}`,
      wide,
      'seq',
      'gap',
      loads,
      WIDE_TAG,
    ),
    'wide-batch': httpRow(
      fast,
      'wide-batch',
      `leaf-ts fast lane, SQLite, \`?count=${BATCH}\`, ${above}`,
      `${wide}?count=${BATCH}`,
      'batch',
      'gap',
      loads,
      WIDE_TAG,
    ),
  };
}

/** An opaque tag's single and batch rows on the same server as fast-single/fast-batch: the cost of the permutation. */
export function opaqueRows(fast: Server): Record<string, HttpRow> {
  const route = `/api/id/segment/${OPAQUE_TAG}`;
  const what = `opaque tag \`${OPAQUE_TAG}\` (FF1 under LEAF_OPAQUE_KEY)`;
  return {
    'opq-single': httpRow(
      fast,
      'opq-single',
      `leaf-ts fast lane, SQLite, single, ${what}`,
      route,
      'seq',
      'none',
      loads,
      OPAQUE_TAG,
    ),
    'opq-batch': httpRow(
      fast,
      'opq-batch',
      `leaf-ts fast lane, SQLite, \`?count=${BATCH}\`, ${what}`,
      `${route}?count=${BATCH}`,
      'permutedBatch',
      'none',
      loads,
      OPAQUE_TAG,
    ),
  };
}

/**
 * A strict tag (ordering strict) beside the ordinary rows: served by its owner (the fast-lane server), and through a
 * second node on the same SQLite file, which relays every request to the owner (its CPU counts the owner's too).
 */
export function orderedRows(owner: Server, relay: Server): Record<string, HttpRow> {
  const route = `/api/id/segment/${ORDERED_TAG}`;
  const strict = `strict tag \`${ORDERED_TAG}\``;
  const owners: Writes = { kind: 'none', note: "its owner's segment loads, as in the row through the owner" };
  return {
    'ord-single': httpRow(
      owner,
      'ord-single',
      `leaf-ts, ${strict}, through its owner, single`,
      route,
      'seq',
      'gap',
      loads,
      ORDERED_TAG,
    ),
    'ord-batch': httpRow(
      owner,
      'ord-batch',
      `leaf-ts, ${strict}, through its owner, \`?count=${BATCH}\``,
      `${route}?count=${BATCH}`,
      'batch',
      'gap',
      loads,
      ORDERED_TAG,
    ),
    'ord-relay-single': httpRow(
      relay,
      'ord-relay-single',
      `leaf-ts, ${strict}, through another node, single`,
      route,
      'seq',
      'gap',
      owners,
      ORDERED_TAG,
    ),
    'ord-relay-batch': httpRow(
      relay,
      'ord-relay-batch',
      `leaf-ts, ${strict}, through another node, \`?count=${BATCH}\``,
      `${route}?count=${BATCH}`,
      'batch',
      'gap',
      owners,
      ORDERED_TAG,
    ),
  };
}

/**
 * Formatted IDs (FORMAT_PATTERN, daily) from the same server and plumbing: the formatted route's cost beside the
 * segment route's. Their claims go to leaf_format_period and are not in /api/metrics, so no DB-write figure.
 */
export function formattedRows(fast: Server): Record<string, HttpRow> {
  const route = `/api/id/formatted/${FORMAT_TAG}`;
  const what = `formatted IDs (\`${FORMAT_PATTERN}\`, daily)`;
  const writes: Writes = { kind: 'none', note: 'period claims, one per segment, not counted here' };
  return {
    'fmt-single': httpRow(
      fast,
      'fmt-single',
      `leaf-ts fast lane, SQLite, single, ${what}`,
      route,
      'formatted',
      'none',
      writes,
      FORMAT_TAG,
    ),
    'fmt-batch': httpRow(
      fast,
      'fmt-batch',
      `leaf-ts fast lane, SQLite, \`?count=${BATCH}\`, ${what}`,
      `${route}?count=${BATCH}`,
      'formattedBatch',
      'none',
      writes,
      FORMAT_TAG,
    ),
  };
}

/** The two database servers side by side, same server.ts and plumbing: MariaDB's single and batch rows, PostgreSQL's. */
export function dialectRows(mariaLeaf: Server, pgLeaf: Server): Record<string, HttpRow> {
  return {
    'maria-single': httpRow(mariaLeaf, 'maria-single', 'leaf-ts fast lane, MariaDB, single', seg, 'seq', 'gap', loads),
    'maria-batch': httpRow(
      mariaLeaf,
      'maria-batch',
      `leaf-ts fast lane, MariaDB, \`?count=${BATCH}\``,
      segBatch,
      'batch',
      'gap',
      loads,
    ),
    'pg-single': httpRow(pgLeaf, 'pg-single', 'leaf-ts fast lane, PostgreSQL, single', seg, 'seq', 'gap', loads),
    'pg-batch': httpRow(
      pgLeaf,
      'pg-batch',
      `leaf-ts fast lane, PostgreSQL, \`?count=${BATCH}\``,
      segBatch,
      'batch',
      'gap',
      loads,
    ),
  };
}

export function httpRows({
  bare,
  fast,
  plain,
  mariaLeaf,
  pgLeaf,
  galeraLeaf,
  cluster,
  autoinc,
  flickr,
  redisAlt,
  uuid,
}: RowServers): Record<string, HttpRow> {
  const noStore = (note: string): Writes => ({ kind: 'none', note });
  return {
    ...fastRows(fast),
    ...dialectRows(mariaLeaf, pgLeaf),
    'galera-single': httpRow(
      galeraLeaf,
      'galera-single',
      'leaf-ts fast lane, 3-node Galera cluster (multi-host URL), single',
      seg,
      'seq',
      'gap',
      loads,
    ),
    'galera-batch': httpRow(
      galeraLeaf,
      'galera-batch',
      `leaf-ts fast lane, 3-node Galera cluster (multi-host URL), \`?count=${BATCH}\``,
      segBatch,
      'batch',
      'gap',
      loads,
    ),
    'cluster-single': httpRow(
      cluster,
      'cluster-single',
      'leaf-ts LEAF_WORKERS=2 (both cores), SQLite, single',
      seg,
      'seq',
      'none',
      loads,
    ),
    'cluster-batch': httpRow(
      cluster,
      'cluster-batch',
      `leaf-ts LEAF_WORKERS=2 (both cores), SQLite, \`?count=${BATCH}\``,
      segBatch,
      'batch',
      'none',
      loads,
    ),
    snowflake: httpRow(
      fast,
      'snowflake',
      'leaf-ts snowflake, fast lane, `GET /api/id/snowflake`',
      '/api/id/snowflake',
      'snowflake',
      'increasing',
      { kind: 'lease' },
    ),
    autoinc: httpRow(
      autoinc,
      'autoinc',
      'alternative: MariaDB AUTO_INCREMENT, one `INSERT` per ID (InnoDB)',
      seg,
      'seq',
      'gap',
      { kind: 'fixed', per1000: 1000, note: 'one INSERT per ID' },
    ),
    flickr: httpRow(
      flickr,
      'flickr',
      'alternative: Flickr ticket server, `REPLACE INTO` + `LAST_INSERT_ID()` (MyISAM)',
      seg,
      'seq',
      'gap',
      { kind: 'fixed', per1000: 1000, note: 'one REPLACE per ID' },
    ),
    redis: httpRow(redisAlt, 'redis', 'alternative: Redis `INCR`', seg, 'seq', 'gap', {
      kind: 'fixed',
      per1000: 1000,
      note: 'one INCR per ID, in memory, no persistence',
    }),
    uuid: httpRow(uuid, 'uuid', 'alternative: `crypto.randomUUID()`', seg, 'uuid', 'none', {
      kind: 'fixed',
      per1000: 0,
      note: 'no store',
    }),
    'bare-single': httpRow(
      bare,
      'bare-single',
      'bare node:http ceiling, single',
      seg,
      'seq',
      'gap',
      noStore('no store'),
    ),
    'bare-batch': httpRow(
      bare,
      'bare-batch',
      `bare node:http ceiling, \`?count=${BATCH}\``,
      segBatch,
      'batch',
      'gap',
      noStore('no store'),
    ),
    'const-next': httpRow(
      plain,
      'const-next',
      'constant Next route ceiling, `GET /api/bench/constant`',
      '/api/bench/constant',
      'constant',
      'none',
      noStore('no store'),
    ),
    'next-single': httpRow(plain, 'next-single', 'plain Next route handler, SQLite, single', seg, 'seq', 'gap', loads),
    'next-batch': httpRow(
      plain,
      'next-batch',
      `plain Next route handler, SQLite, \`?count=${BATCH}\``,
      segBatch,
      'batch',
      'gap',
      loads,
    ),
  };
}

/** Measured in this order in even rounds, reversed in odd ones (rows not in the run's table are passed over). */
export const ROW_GROUPS = [
  [
    'bare-single',
    'fast-single',
    'slow-single',
    'wide-single',
    'opq-single',
    'fmt-single',
    'ord-single',
    'ord-relay-single',
    'const-next',
    'next-single',
    'maria-single',
    'pg-single',
    'galera-single',
    'cluster-single',
    'snowflake',
    'autoinc',
    'flickr',
    'redis',
    'uuid',
  ],
  [
    'bare-batch',
    'fast-batch',
    'wide-batch',
    'opq-batch',
    'fmt-batch',
    'ord-batch',
    'ord-relay-batch',
    'next-batch',
    'maria-batch',
    'pg-batch',
    'galera-batch',
    'cluster-batch',
  ],
];
