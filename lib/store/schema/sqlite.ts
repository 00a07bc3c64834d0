import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { BIZ_TAG_MAX_LENGTH } from '../../bizTag';

/** Leaf's leaf_alloc table, SQLite flavour (INTEGER is 64-bit; the store reads max_id as text and binds it as a bigint, so it is exact up to 2^63−1). */
export const leafAlloc = sqliteTable('leaf_alloc', {
  bizTag: text('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull().default(''),
  maxId: integer('max_id', { mode: 'number' }).notNull().default(1),
  step: integer('step', { mode: 'number' }).notNull(),
  description: text('description', { length: 256 }),
  updateTime: text('update_time')
    .notNull()
    .default(sql`CURRENT_TIMESTAMP`),
});

export type LeafAllocRow = typeof leafAlloc.$inferSelect;

/** Worker-id leases; times in ms on the database clock; last_timestamp is the fence a successor starts above. */
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
  deletedAt: text('deleted_at')
    .notNull()
    .default(sql`CURRENT_TIMESTAMP`),
});

/** The fleet registry: one row per live node identity, rewritten by its heartbeat; times on the database clock. */
export const leafNode = sqliteTable('leaf_node', {
  nodeId: text('node_id', { length: 255 }).primaryKey().notNull(),
  instanceId: text('instance_id', { length: 64 }).notNull(),
  address: text('address', { length: 255 }).notNull(),
  version: text('version', { length: 64 }).notNull(),
  startedAt: integer('started_at', { mode: 'number' }).notNull(),
  heartbeatAt: integer('heartbeat_at', { mode: 'number' }).notNull(),
  /** `up` while heartbeating, `stopped` after a graceful stop; `gone` is derived from a stale heartbeat_at. */
  state: text('state', { length: 16 }).notNull(),
  snapshot: text('snapshot').notNull(),
});

/** Every admin change and login, append-only from the application's side; newest first by id. */
export const leafAudit = sqliteTable(
  'leaf_audit',
  {
    id: integer('id', { mode: 'number' }).primaryKey({ autoIncrement: true }),
    at: integer('at', { mode: 'number' }).notNull(),
    action: text('action', { length: 32 }).notNull(),
    bizTag: text('biz_tag', { length: BIZ_TAG_MAX_LENGTH }),
    actor: text('actor', { length: 128 }).notNull(),
    address: text('address', { length: 64 }).notNull(),
    nodeId: text('node_id', { length: 255 }).notNull(),
    before: text('before'),
    after: text('after'),
  },
  (t) => [index('leaf_audit_biz_tag').on(t.bizTag, t.id)],
);

/** A tag's claim semantics (`*` the fleet default; none: `leaf-ts`), a side table so leaf_alloc stays Leaf's. */
export const leafSemantics = sqliteTable('leaf_semantics', {
  bizTag: text('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  semantics: text('semantics', { length: 8 }).notNull(),
});

/** Per-tag access tokens: only their SHA-256, `tags` a JSON array; revoked rows stay. */
export const leafToken = sqliteTable('leaf_token', {
  id: text('id', { length: 16 }).primaryKey().notNull(),
  name: text('name', { length: 128 }).notNull(),
  tokenHash: text('token_hash', { length: 64 }).notNull().unique(),
  tags: text('tags').notNull(),
  createdAt: integer('created_at', { mode: 'number' }).notNull(),
  createdBy: text('created_by', { length: 128 }).notNull(),
  revokedAt: integer('revoked_at', { mode: 'number' }),
});

/**
 * Console sessions: the cookie names a row, so a logout or "sign out everywhere" holds on every node at its next
 * request. `token_tag` is the admin token's short hash: a rotated token's sessions are neither valid nor listed.
 */
export const leafSession = sqliteTable('leaf_session', {
  id: text('id', { length: 16 }).primaryKey().notNull(),
  tokenTag: text('token_tag', { length: 16 }).notNull(),
  createdAt: integer('created_at', { mode: 'number' }).notNull(),
  lastSeenAt: integer('last_seen_at', { mode: 'number' }).notNull(),
  expiresAt: integer('expires_at', { mode: 'number' }).notNull(),
  address: text('address', { length: 64 }).notNull(),
  userAgent: text('user_agent', { length: 256 }).notNull(),
  endedAt: integer('ended_at', { mode: 'number' }),
});

/** Formatted tags: a pattern whose sequence restarts each period in `time_zone`; a side table. */
export const leafFormat = sqliteTable('leaf_format', {
  bizTag: text('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  pattern: text('pattern', { length: 256 }).notNull(),
  resetPeriod: text('reset_period', { length: 16 }).notNull(),
  timeZone: text('time_zone', { length: 64 }).notNull(),
  step: integer('step', { mode: 'number' }).notNull(),
  description: text('description', { length: 256 }),
  createdAt: integer('created_at', { mode: 'number' }).notNull(),
  updatedAt: integer('updated_at', { mode: 'number' }).notNull(),
  /** Set when the format is deleted: the row stays, so a re-created format must keep its pattern shape and reset. */
  deletedAt: integer('deleted_at', { mode: 'number' }),
});

/** One sequence per formatted tag and period (`period_key` '' or its date); rows outlive their format. */
export const leafFormatPeriod = sqliteTable(
  'leaf_format_period',
  {
    bizTag: text('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).notNull(),
    periodKey: text('period_key', { length: 8 }).notNull(),
    maxId: integer('max_id', { mode: 'number' }).notNull(),
    step: integer('step', { mode: 'number' }).notNull(),
    updateTime: integer('update_time', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.bizTag, t.periodKey] })],
);

/** Strict tags (docs/design.md#ordered-tags): a row per tag set to ordering strict, holding its owner's lease. */
export const leafOrder = sqliteTable('leaf_order', {
  /** A tag's row, kept while the tag exists once it was ever strict; the row `*` holds only the fleet's ordering version. */
  bizTag: text('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  /** `strict` or `none` (a row turned back keeps its lease, so a paused old owner is still waited out). */
  ordering: text('ordering', { length: 8 }).notNull().default('strict'),
  /** Ms on the database clock of the tag's last ordering change. */
  strictSince: integer('strict_since', { mode: 'number' }).notNull(),
  /** The fleet's ordering version of that change (row `*`: the latest version); every change raises it by one. */
  version: integer('version', { mode: 'number' }).notNull().default(0),
  /** Ms on the database clock when every process acknowledged the change to strict; 0 while it is pending. */
  completeAt: integer('complete_at', { mode: 'number' }).notNull().default(0),
  /** Grows with every acquisition and every change to strict; 0 before the first. */
  epoch: integer('epoch', { mode: 'number' }).notNull().default(0),
  ownerNode: text('owner_node', { length: 255 }),
  ownerInstance: text('owner_instance', { length: 64 }),
  ownerAddress: text('owner_address', { length: 255 }),
  /** Ms on the database clock; 0 after a release. */
  leaseExpiresAt: integer('lease_expires_at', { mode: 'number' }).notNull().default(0),
  acquiredAt: integer('acquired_at', { mode: 'number' }).notNull().default(0),
});

/**
 * Every process that may hold IDs of a tag in memory (a node, an embedded process), and the ordering version it has
 * applied: a change to strict completes once every row acknowledged it (docs/design.md#ordered-tags).
 */
export const leafParticipant = sqliteTable('leaf_participant', {
  instanceId: text('instance_id', { length: 64 }).primaryKey().notNull(),
  /** `node` or `embedded`. */
  kind: text('kind', { length: 16 }).notNull(),
  /** The node id, or the embedded process's name. */
  label: text('label', { length: 255 }).notNull(),
  /** The machine's host name, for people. */
  host: text('host', { length: 255 }).notNull(),
  /** boot id, pid namespace, pid and start time: a process on the same machine can prove this one dead. */
  procKey: text('proc_key', { length: 255 }).notNull(),
  ackedVersion: integer('acked_version', { mode: 'number' }).notNull().default(0),
  /** Ms on the database clock. */
  startedAt: integer('started_at', { mode: 'number' }).notNull(),
  seenAt: integer('seen_at', { mode: 'number' }).notNull(),
});

/** Settings every node of a fleet must share (the snowflake layout and epoch): the first node's, kept. */
export const leafSetting = sqliteTable('leaf_setting', {
  name: text('name', { length: 64 }).primaryKey().notNull(),
  value: text('value', { length: 512 }).notNull(),
  /** The node that recorded it, and when (ms, database clock). */
  setBy: text('set_by', { length: 255 }).notNull(),
  setAt: integer('set_at', { mode: 'number' }).notNull(),
});

/**
 * A tag's encoding, written with the tag and never changed or deleted (the tombstone's encoding binds a re-creation):
 * no row means plain. `key_id` is the fingerprint of the LEAF_OPAQUE_KEY its IDs are permuted with.
 */
export const leafEncoding = sqliteTable('leaf_encoding', {
  bizTag: text('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).primaryKey().notNull(),
  /** `opaque` (63 bits) or `opaque-js-safe` (53 bits). */
  encoding: text('encoding', { length: 16 }).notNull(),
  keyId: text('key_id', { length: 16 }).notNull(),
});

/**
 * The claim log (lib/claims/): one row per claim of a segment or range lease, written in the claim's transaction, and
 * one `close` row per stopped process. Positions (not a region's IDs), in the claim's numbering; times in database ms.
 */
export const leafClaim = sqliteTable(
  'leaf_claim',
  {
    id: integer('id', { mode: 'number' }).primaryKey({ autoIncrement: true }),
    bizTag: text('biz_tag', { length: BIZ_TAG_MAX_LENGTH }).notNull(),
    firstId: integer('first_id', { mode: 'number' }).notNull(),
    lastId: integer('last_id', { mode: 'number' }).notNull(),
    claimedAt: integer('claimed_at', { mode: 'number' }).notNull(),
    kind: text('kind', { length: 16 }).notNull(),
    claimer: text('claimer', { length: 255 }).notNull(),
    instance: text('instance', { length: 64 }).notNull(),
    servingFirst: integer('serving_first', { mode: 'number' }),
    leasedMax: integer('leased_max', { mode: 'number' }),
    tailMs: integer('tail_ms', { mode: 'number' }).notNull(),
    region: integer('region', { mode: 'number' }).notNull(),
    regions: integer('regions', { mode: 'number' }).notNull(),
  },
  (t) => [index('leaf_claim_tag_instance').on(t.bizTag, t.instance, t.claimedAt)],
);
