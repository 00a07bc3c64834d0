import {
  bigint,
  index,
  int,
  mediumtext,
  mysqlTable,
  primaryKey,
  text,
  timestamp,
  varchar,
} from 'drizzle-orm/mysql-core';
import { BIZ_TAG_MAX_LENGTH } from '../../bizTag';

/** Leaf's leaf_alloc table, exactly as Leaf ships it for MySQL. */
export const leafAlloc = mysqlTable('leaf_alloc', {
  bizTag: varchar('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull().default(''),
  // Typed as number for writes; the store reads max_id raw (a string from mysql2) and checks it is exact.
  maxId: bigint('max_id', { mode: 'number' }).notNull().default(1),
  step: int('step').notNull(),
  description: varchar('description', { length: 256 }),
  updateTime: timestamp('update_time').notNull().defaultNow().onUpdateNow(),
});

export type LeafAllocRow = typeof leafAlloc.$inferSelect;

/**
 * Snowflake worker ids leased from the database. Times are ms since the Unix epoch: lease_expires_at and
 * heartbeat_at on the database's clock; last_timestamp is the fence — the holder issues no ID with a timestamp at
 * or past it without renewing, so a successor starts above it.
 */
export const leafWorker = mysqlTable(
  'leaf_worker',
  {
    workerId: int('worker_id').primaryKey().notNull(),
    nodeId: varchar('node_id', { length: 255 }).notNull(),
    instanceId: varchar('instance_id', { length: 64 }).notNull(),
    leaseExpiresAt: bigint('lease_expires_at', { mode: 'number' }).notNull(),
    lastTimestamp: bigint('last_timestamp', { mode: 'number' }).notNull().default(0),
    heartbeatAt: bigint('heartbeat_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('leaf_worker_node_id').on(t.nodeId)],
);

/** What a deleted tag leaves behind, so re-creating it continues above the IDs it already issued. */
export const leafAllocTombstone = mysqlTable('leaf_alloc_tombstone', {
  bizTag: varchar('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  maxId: bigint('max_id', { mode: 'number' }).notNull(),
  deletedAt: timestamp('deleted_at').notNull().defaultNow(),
});

/**
 * The fleet registry: one row per live node identity, rewritten by its heartbeat (one write per node per beat).
 * Times are ms since the Unix epoch on the database's clock, so nodes with skewed clocks agree on who is gone.
 * `snapshot` is the node's compact JSON state (lib/fleet/types.ts, NodeSnapshot).
 */
export const leafNode = mysqlTable('leaf_node', {
  nodeId: varchar('node_id', { length: 255 }).primaryKey().notNull(),
  instanceId: varchar('instance_id', { length: 64 }).notNull(),
  address: varchar('address', { length: 255 }).notNull(),
  version: varchar('version', { length: 64 }).notNull(),
  startedAt: bigint('started_at', { mode: 'number' }).notNull(),
  heartbeatAt: bigint('heartbeat_at', { mode: 'number' }).notNull(),
  /** `up` while heartbeating, `stopped` after a graceful stop; `gone` is derived from a stale heartbeat_at. */
  state: varchar('state', { length: 16 }).notNull(),
  snapshot: mediumtext('snapshot').notNull(),
});

/** Every admin change and login, append-only from the application's side; newest first by id. */
export const leafAudit = mysqlTable(
  'leaf_audit',
  {
    id: bigint('id', { mode: 'number', unsigned: true }).autoincrement().primaryKey(),
    at: bigint('at', { mode: 'number' }).notNull(),
    action: varchar('action', { length: 32 }).notNull(),
    bizTag: varchar('biz_tag', { length: BIZ_TAG_MAX_LENGTH }),
    actor: varchar('actor', { length: 128 }).notNull(),
    address: varchar('address', { length: 64 }).notNull(),
    nodeId: varchar('node_id', { length: 255 }).notNull(),
    before: text('before'),
    after: text('after'),
  },
  (t) => [index('leaf_audit_biz_tag').on(t.bizTag, t.id)],
);

/**
 * Which claim semantics a tag follows (lib/segment/semantics.ts): `leaf` serves [max_id − step, max_id − 1] as Leaf's
 * Java server does, `leaf-ts` [max_id − step + 1, max_id]. The row `*` is the fleet default; no row at all means
 * `leaf-ts`. A side table, so leaf_alloc stays exactly Leaf's. Every claim reads it in its own transaction.
 */
export const leafSemantics = mysqlTable('leaf_semantics', {
  bizTag: varchar('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  semantics: varchar('semantics', { length: 8 }).notNull(),
});

/**
 * Per-tag access tokens (lib/auth/scopedTokens.ts): only the SHA-256 of each token is kept, never the token.
 * `tags` is a JSON array of tag names. Revoked rows stay (revoked_at set), so the console and the audit trail
 * can still name them. Times are ms since the Unix epoch.
 */
export const leafToken = mysqlTable('leaf_token', {
  id: varchar('id', { length: 16 }).primaryKey().notNull(),
  name: varchar('name', { length: 128 }).notNull(),
  tokenHash: varchar('token_hash', { length: 64 }).notNull().unique(),
  tags: text('tags').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  createdBy: varchar('created_by', { length: 128 }).notNull(),
  revokedAt: bigint('revoked_at', { mode: 'number' }),
});

/**
 * Formatted tags (lib/format): a pattern such as `ORD-{yyyyMMdd}-{seq:6}` whose sequence restarts each period
 * (`never`, `daily`, `monthly`, `yearly`) in `time_zone`. `step` is the first claim's size of each period. A side
 * table, so leaf_alloc stays exactly Leaf's. Times are ms since the Unix epoch.
 */
export const leafFormat = mysqlTable('leaf_format', {
  bizTag: varchar('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  pattern: varchar('pattern', { length: 256 }).notNull(),
  resetPeriod: varchar('reset_period', { length: 16 }).notNull(),
  timeZone: varchar('time_zone', { length: 64 }).notNull(),
  step: int('step').notNull(),
  description: varchar('description', { length: 256 }),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  /** Set when the format is deleted: the row stays, so a re-created format must keep its pattern shape and reset. */
  deletedAt: bigint('deleted_at', { mode: 'number' }),
});

/**
 * One sequence per formatted tag and period: `period_key` is '' (never), `yyyy`, `yyyyMM` or `yyyyMMdd` in the
 * format's zone. max_id is the highest sequence number claimed in the period; step the size of the latest claim.
 * Rows outlive their format, so a re-created format continues above them.
 */
export const leafFormatPeriod = mysqlTable(
  'leaf_format_period',
  {
    bizTag: varchar('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).notNull(),
    periodKey: varchar('period_key', { length: 8 }).notNull(),
    maxId: bigint('max_id', { mode: 'number' }).notNull(),
    step: int('step').notNull(),
    updateTime: bigint('update_time', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.bizTag, t.periodKey] })],
);
