import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { BIZ_TAG_MAX_LENGTH } from '../../bizTag';

/** Leaf's leaf_alloc table, SQLite flavour (INTEGER is 64-bit; values stay below 2^53 by the store's guard). */
export const leafAlloc = sqliteTable('leaf_alloc', {
  bizTag: text('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull().default(''),
  maxId: integer('max_id', { mode: 'number' }).notNull().default(1),
  step: integer('step', { mode: 'number' }).notNull(),
  description: text('description', { length: 256 }),
  updateTime: text('update_time').notNull().default(sql`CURRENT_TIMESTAMP`),
});

export type LeafAllocRow = typeof leafAlloc.$inferSelect;

/**
 * Snowflake worker ids leased from the database. Times are ms since the Unix epoch: lease_expires_at and
 * heartbeat_at on the database's clock; last_timestamp is the fence — the holder issues no ID with a timestamp at
 * or past it without renewing, so a successor starts above it.
 */
export const leafWorker = sqliteTable(
  'leaf_worker',
  {
    workerId: integer('worker_id', { mode: 'number' }).primaryKey().notNull(),
    nodeId: text('node_id', { length: 255 }).notNull(),
    instanceId: text('instance_id', { length: 64 }).notNull(),
    leaseExpiresAt: integer('lease_expires_at', { mode: 'number' }).notNull(),
    lastTimestamp: integer('last_timestamp', { mode: 'number' }).notNull().default(0),
    heartbeatAt: integer('heartbeat_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('leaf_worker_node_id').on(t.nodeId)],
);

/** What a deleted tag leaves behind, so re-creating it continues above the IDs it already issued. */
export const leafAllocTombstone = sqliteTable('leaf_alloc_tombstone', {
  bizTag: text('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  maxId: integer('max_id', { mode: 'number' }).notNull(),
  deletedAt: text('deleted_at').notNull().default(sql`CURRENT_TIMESTAMP`),
});
