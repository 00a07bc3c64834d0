import { bigint, int, mysqlTable, timestamp, varchar } from 'drizzle-orm/mysql-core';

/** Leaf's leaf_alloc table, exactly as Leaf ships it for MySQL. */
export const leafAlloc = mysqlTable('leaf_alloc', {
  bizTag: varchar('biz_tag', { length: 128 }).primaryKey().notNull().default(''),
  // bigint mode: never read as a lossy JS number (the store converts after an exactness check).
  maxId: bigint('max_id', { mode: 'bigint' }).notNull().default(1n),
  step: int('step').notNull(),
  description: varchar('description', { length: 256 }),
  updateTime: timestamp('update_time').notNull().defaultNow().onUpdateNow(),
});

export type LeafAllocRow = typeof leafAlloc.$inferSelect;
