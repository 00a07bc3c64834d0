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

/** Worker-id leases; times in ms on the database clock; last_timestamp is the fence a successor starts above. */
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

/** The fleet registry: one row per live node identity, rewritten by its heartbeat; times on the database clock. */
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

/** A tag's claim semantics (`*` the fleet default; none: `leaf-ts`), a side table so leaf_alloc stays Leaf's. */
export const leafSemantics = mysqlTable('leaf_semantics', {
  bizTag: varchar('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  semantics: varchar('semantics', { length: 8 }).notNull(),
});

/** Per-tag access tokens: only their SHA-256, `tags` a JSON array; revoked rows stay. */
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
 * Console sessions: the cookie names a row, so a logout or "sign out everywhere" holds on every node at its next
 * request. `token_tag` is the admin token's short hash: a rotated token's sessions are neither valid nor listed.
 */
export const leafSession = mysqlTable('leaf_session', {
  id: varchar('id', { length: 16 }).primaryKey().notNull(),
  tokenTag: varchar('token_tag', { length: 16 }).notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  lastSeenAt: bigint('last_seen_at', { mode: 'number' }).notNull(),
  expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  address: varchar('address', { length: 64 }).notNull(),
  userAgent: varchar('user_agent', { length: 256 }).notNull(),
  endedAt: bigint('ended_at', { mode: 'number' }),
});

/** Formatted tags: a pattern whose sequence restarts each period in `time_zone`; a side table. */
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

/** One sequence per formatted tag and period (`period_key` '' or its date); rows outlive their format. */
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

/** Strict tags (docs/design.md#ordered-tags): a row per tag set to ordering strict, holding its owner's lease. */
export const leafOrder = mysqlTable('leaf_order', {
  /** A tag's row, kept while the tag exists once it was ever strict; the row `*` holds only the fleet's ordering version. */
  bizTag: varchar('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  /** `strict` or `none` (a row turned back keeps its lease, so a paused old owner is still waited out). */
  ordering: varchar('ordering', { length: 8 }).notNull().default('strict'),
  /** Ms on the database clock of the tag's last ordering change. */
  strictSince: bigint('strict_since', { mode: 'number' }).notNull(),
  /** The fleet's ordering version of that change (row `*`: the latest version); every change raises it by one. */
  version: bigint('version', { mode: 'number' }).notNull().default(0),
  /** Ms on the database clock when every process acknowledged the change to strict; 0 while it is pending. */
  completeAt: bigint('complete_at', { mode: 'number' }).notNull().default(0),
  /** Grows with every acquisition and every change to strict; 0 before the first. */
  epoch: bigint('epoch', { mode: 'number' }).notNull().default(0),
  ownerNode: varchar('owner_node', { length: 255 }),
  ownerInstance: varchar('owner_instance', { length: 64 }),
  ownerAddress: varchar('owner_address', { length: 255 }),
  /** Ms on the database clock; 0 after a release. */
  leaseExpiresAt: bigint('lease_expires_at', { mode: 'number' }).notNull().default(0),
  acquiredAt: bigint('acquired_at', { mode: 'number' }).notNull().default(0),
});

/**
 * Every process that may hold IDs of a tag in memory (a node, an embedded process), and the ordering version it has
 * applied: a change to strict completes once every row acknowledged it (docs/design.md#ordered-tags).
 */
export const leafParticipant = mysqlTable('leaf_participant', {
  instanceId: varchar('instance_id', { length: 64 }).primaryKey().notNull(),
  /** `node` or `embedded`. */
  kind: varchar('kind', { length: 16 }).notNull(),
  /** The node id, or the embedded process's name. */
  label: varchar('label', { length: 255 }).notNull(),
  /** The machine's host name, for people. */
  host: varchar('host', { length: 255 }).notNull(),
  /** boot id, pid namespace, pid and start time: a process on the same machine can prove this one dead. */
  procKey: varchar('proc_key', { length: 255 }).notNull(),
  ackedVersion: bigint('acked_version', { mode: 'number' }).notNull().default(0),
  /** Ms on the database clock. */
  startedAt: bigint('started_at', { mode: 'number' }).notNull(),
  seenAt: bigint('seen_at', { mode: 'number' }).notNull(),
});

/** Settings every node of a fleet must share (the snowflake layout and epoch): the first node's, kept. */
export const leafSetting = mysqlTable('leaf_setting', {
  name: varchar('name', { length: 64 }).primaryKey().notNull(),
  value: varchar('value', { length: 512 }).notNull(),
  /** The node that recorded it, and when (ms, database clock). */
  setBy: varchar('set_by', { length: 255 }).notNull(),
  setAt: bigint('set_at', { mode: 'number' }).notNull(),
});

/**
 * A tag's encoding, written with the tag and never changed or deleted (the tombstone's encoding binds a re-creation):
 * no row means plain. `key_id` is the fingerprint of the LEAF_OPAQUE_KEY its IDs are permuted with.
 */
export const leafEncoding = mysqlTable('leaf_encoding', {
  bizTag: varchar('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  /** `opaque` (63 bits) or `opaque-js-safe` (53 bits). */
  encoding: varchar('encoding', { length: 16 }).notNull(),
  keyId: varchar('key_id', { length: 16 }).notNull(),
});

/** The claim log (lib/claims/), as in schema/sqlite.ts. */
export const leafClaim = mysqlTable(
  'leaf_claim',
  {
    id: bigint('id', { mode: 'number', unsigned: true }).autoincrement().primaryKey(),
    bizTag: varchar('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).notNull(),
    firstId: bigint('first_id', { mode: 'number' }).notNull(),
    lastId: bigint('last_id', { mode: 'number' }).notNull(),
    claimedAt: bigint('claimed_at', { mode: 'number' }).notNull(),
    kind: varchar('kind', { length: 16 }).notNull(),
    claimer: varchar('claimer', { length: 255 }).notNull(),
    instance: varchar('instance', { length: 64 }).notNull(),
    servingFirst: bigint('serving_first', { mode: 'number' }),
    leasedMax: bigint('leased_max', { mode: 'number' }),
    tailMs: bigint('tail_ms', { mode: 'number' }).notNull(),
    region: int('region').notNull(),
    regions: int('regions').notNull(),
  },
  (t) => [index('leaf_claim_tag_instance').on(t.bizTag, t.instance, t.claimedAt)],
);
