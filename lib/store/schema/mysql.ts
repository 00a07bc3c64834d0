import { bigint, index, int, mysqlTable, timestamp, varchar } from 'drizzle-orm/mysql-core';
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
