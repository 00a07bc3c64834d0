import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Leaf's leaf_alloc table, SQLite flavour (INTEGER is 64-bit; values stay below 2^53 by the store's guard). */
export const leafAlloc = sqliteTable('leaf_alloc', {
  bizTag: text('biz_tag', { length: 128 }).primaryKey().notNull().default(''),
  maxId: integer('max_id', { mode: 'number' }).notNull().default(1),
  step: integer('step', { mode: 'number' }).notNull(),
  description: text('description', { length: 256 }),
  updateTime: text('update_time').notNull().default(sql`CURRENT_TIMESTAMP`),
});

export type LeafAllocRow = typeof leafAlloc.$inferSelect;
