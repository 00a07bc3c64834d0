import { LeafError } from '../errors';
import { type Id, MAX_ID, MAX_ID_TEXT, parseId } from '../segment/id';
import type { Semantics } from '../segment/semantics';
import type { ResetPeriod } from '../format/period';

/** What the segment engine needs from a database. Both dialects implement it; tests fake it. */
export interface TagInfo {
  bizTag: string;
  /** The step stored in the row: the first load's step and the floor for dynamic steps. */
  step: number;
}

export interface TagRow extends TagInfo {
  /** Exact: a number up to 2^53−1, a bigint above (lib/segment/id.ts). */
  maxId: Id;
  description: string | null;
  updateTime: Date;
}

export interface Allocation {
  bizTag: string;
  /** max_id after the claim, exact (a bigint above 2^53−1). */
  maxId: Id;
  /** The step that was added, i.e. the size of the claimed segment. */
  step: number;
  /**
   * The tag's effective semantics, read in the claim's own transaction after its UPDATE: `leaf-ts` owns
   * [maxId - step + 1, maxId], `leaf` owns [maxId - step, maxId - 1] (lib/segment/semantics.ts).
   */
  semantics: Semantics;
}

export interface NewTag {
  bizTag: string;
  step: number;
  /** Highest ID already used by an older scheme; the first segment starts above it. Default 1, as Leaf. */
  maxId?: Id;
  description?: string | null;
}

export interface TagChanges {
  step?: number;
  description?: string | null;
}

/** What the segment engine needs from a database: the tag list and the atomic claim. */
export interface SegmentSource {
  listTags(): Promise<TagInfo[]>;
  /**
   * Atomically claims the next segment of `bizTag`: max_id grows by `step` (the row's own step when omitted).
   * Two callers, in any processes, never receive overlapping segments.
   * Throws LeafError `tag_not_found`, `id_space_exhausted` (max_id would pass 2^63−1) or `store_unavailable`.
   */
  allocate(bizTag: string, step?: number): Promise<Allocation>;
  /**
   * Gives back the unused top of this node's latest claim (graceful stop): one compare-and-set, `max_id` from
   * `claimedMaxId` (what this node's claim left) down to `newMaxId`. True when the row still held `claimedMaxId`;
   * false when anything moved it since (another claim, a raise, a semantics switch, a delete): nothing given back.
   * Optional: a source without it gives nothing back.
   */
  giveBack?(bizTag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean>;
}

/** leaf_semantics as the admin API shows it: the fleet default and each tag's own setting. */
export interface SemanticsSettings {
  /** The `*` row; `leaf-ts` without one. */
  default: Semantics;
  /** Tags with their own row (a tag without one follows the default). */
  tags: Record<string, Semantics>;
}

/** What a switch did: the effective semantics before and after, and how many rows skipped one ID (max_id + 1). */
export interface SemanticsSwitch {
  before: Semantics;
  after: Semantics;
  /** leaf_alloc rows bumped (tombstones not counted). */
  bumped: number;
}

/**
 * Switching semantics: one transaction that changes leaf_semantics and, for each tag whose effective semantics goes
 * leaf-ts → leaf, raises max_id by one (the last leaf-ts claim may have served max_id itself, the first leaf claim
 * would start at it), tombstones included; with `audit`, its entry in the same transaction.
 */
export interface SemanticsStore {
  getSemantics(): Promise<SemanticsSettings>;
  /** The effective semantics of one tag (its own row, else the default). */
  tagSemantics(bizTag: string): Promise<Semantics>;
  /** Sets the fleet default: every tag without its own row, and every tombstone without one, follows it. */
  setDefaultSemantics(semantics: Semantics, audit?: AuditStamp): Promise<SemanticsSwitch>;
  /** Sets a tag's own semantics; null removes its row, so it follows the default. `tag_not_found` when missing. */
  setTagSemantics(bizTag: string, semantics: Semantics | null, audit?: AuditStamp): Promise<SemanticsSwitch>;
}

export interface SegmentStore extends SegmentSource, SemanticsStore {
  readonly dialect: 'sqlite' | 'mysql';
  /** Full rows, for the console. */
  listTagRows(): Promise<TagRow[]>;
  getTag(bizTag: string): Promise<TagRow | undefined>;
  /**
   * Inserts a tag. A deleted tag's tombstone is honoured: without `maxId` the new row continues at the old
   * max_id; a lower `maxId` is refused (`max_id_below_tombstone`). `tag_exists` when the row is there.
   * With `audit`, each change writes its leaf_audit row (before and after) in the same transaction: a change
   * without its audit row cannot commit, and a refused change writes none.
   */
  createTag(tag: NewTag, audit?: AuditStamp): Promise<TagRow>;
  /** `tag_not_found` when missing. */
  updateTag(bizTag: string, changes: TagChanges, audit?: AuditStamp): Promise<TagRow>;
  /** Raises max_id (never lowers it: `max_id_lowered`, which would hand out IDs again). */
  raiseMaxId(bizTag: string, maxId: Id, audit?: AuditStamp): Promise<TagRow>;
  /** Deletes the row and leaves a tombstone with its max_id, in one transaction. */
  deleteTag(bizTag: string, audit?: AuditStamp): Promise<{ maxId: Id }>;
  getTombstone(bizTag: string): Promise<{ maxId: Id } | undefined>;
  ping(): Promise<void>;
  /**
   * Each database host on its own (MySQL/MariaDB: every host of the URL, probed in parallel, each within
   * `timeoutMs`). Absent where there is no host to speak of (SQLite).
   */
  hosts?(timeoutMs?: number): Promise<HostHealth[]>;
  close(): Promise<void>;
}

/** One database host as /api/health reports it. */
export interface HostHealth {
  /** host:port */
  host: string;
  reachable: boolean;
  /** Connect plus `SELECT 1` on a fresh connection; up to the failure when unreachable. */
  latencyMs: number;
  /** Present on a Galera node only. */
  galera?: {
    /** wsrep_local_state_comment: `Synced`, `Donor/Desynced`, `Joining`, … */
    state: string;
    /** wsrep_cluster_size */
    clusterSize: number;
    /** wsrep_ready = ON: the node accepts queries. */
    ready: boolean;
    /** wsrep_cluster_status: `Primary`, `non-Primary`, `Disconnected`. */
    clusterStatus: string;
  };
  /** Why it is unreachable: a short driver code (ECONNREFUSED, TIMEOUT, …), never a driver message. */
  error?: string;
}

/** max_id is a signed BIGINT, as in Leaf: no claim may take it past this. */
export { MAX_ID };

/** A claim refused because max_id would pass 2^63−1. */
export function idSpaceExhausted(bizTag: string): LeafError {
  return new LeafError('id_space_exhausted', `Tag "${bizTag}" has no IDs left below ${MAX_ID_TEXT}, the largest BIGINT.`);
}

/** A snowflake worker id held by this process. */
export interface WorkerLease {
  workerId: number;
  /** The fence: the highest timestamp (ms) any earlier holder of this id may have used. Start above it. */
  lastTimestampMs: number;
}

export interface WorkerRow {
  workerId: number;
  nodeId: string;
  instanceId: string;
  leaseExpiresAt: number;
  lastTimestamp: number;
  heartbeatAt: number;
}

/**
 * The database primitives of worker-id leasing; `acquireWorker` in lib/snowflake/node.ts composes them.
 * Every claim is one conditional statement, so two nodes racing for an id cannot both win it.
 * Lease times are on the database's clock, so nodes with skewed clocks agree on expiry.
 */
export interface WorkerStore {
  listWorkers(): Promise<WorkerRow[]>;
  /** Re-takes `workerId` if its row still names `nodeId` (a restart), live lease or not. */
  claimOwnWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean>;
  /** Inserts a row for a never-used id; false if another node got there first. */
  claimFreeWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean>;
  /** Takes over `workerId` only if its lease has expired on the database clock. */
  claimExpiredWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean>;
  /** The fence of an id this instance holds, read after the claim so no earlier holder can move it. */
  readWorkerFence(workerId: number, instanceId: string): Promise<number | undefined>;
  /** Extends the lease and raises the fence to `reserveUntilMs`; false when the lease is no longer ours. */
  renewWorker(workerId: number, instanceId: string, leaseMs: number, reserveUntilMs: number): Promise<boolean>;
  /** Graceful stop: fence at the last timestamp used, lease ended, so a restart can reuse it at once. */
  releaseWorker(workerId: number, instanceId: string, lastTimestampMs: number): Promise<void>;
}

/** A `leaf_node` row. Times are ms since the Unix epoch; heartbeatAt on the database's clock. */
export interface NodeRow {
  nodeId: string;
  instanceId: string;
  address: string;
  version: string;
  startedAt: number;
  heartbeatAt: number;
  /** As stored: `up` or `stopped` (gone is derived from heartbeatAt by the reader). */
  state: string;
  /** The node's encoded snapshot (lib/fleet/snapshotCodec.ts). */
  snapshot: string;
}

/** What a process writes when it registers. */
export type NodeRegistration = Pick<NodeRow, 'nodeId' | 'instanceId' | 'address' | 'version' | 'startedAt' | 'snapshot'>;

/**
 * The database primitives of the fleet registry (lib/fleet/registry.ts composes them). Each claim of an identity is
 * conditional in the database, so two processes racing for one node id cannot both win it; times on its clock.
 */
export interface NodeStore {
  /**
   * Claims `nodeId` for this instance: inserts the row, or takes it only if it is already ours, `stopped`, or its
   * heartbeat is older than `goneMs`. False when a live row of another instance holds it.
   */
  registerNode(reg: NodeRegistration, goneMs: number): Promise<boolean>;
  /**
   * Takes a row another instance left, only while it is exactly as we last saw it (`instanceId`, `heartbeatAt`):
   * its holder died without a goodbye. False when it moved (the holder lives, or someone else took it).
   */
  takeOverNode(reg: NodeRegistration, seen: Pick<NodeRow, 'instanceId' | 'heartbeatAt'>): Promise<boolean>;
  /** The heartbeat: heartbeat_at = now, state `up`, and the snapshot unless null (unchanged). False when not ours. */
  beatNode(nodeId: string, instanceId: string, snapshot: string | null): Promise<boolean>;
  /** Graceful stop: state `stopped`, if the row is still ours. */
  stopNode(nodeId: string, instanceId: string): Promise<void>;
  getNode(nodeId: string): Promise<NodeRow | undefined>;
  /**
   * Every row, and the database's clock read by the same query (to tell who is gone). Without snapshots (each
   * `snapshot` empty) it is cheap enough for a metrics scrape.
   */
  listNodes(withSnapshots?: boolean): Promise<{ dbNow: number; rows: NodeRow[] }>;
  /** Deletes rows whose last heartbeat is older than `olderThanMs` (gone or stopped long ago); how many went. */
  pruneNodes(olderThanMs: number): Promise<number>;
}

/** What a leaf-ts node needs from its database. */
export type LeafStore = SegmentStore & WorkerStore & NodeStore & AuditStore & TokenStore & FormatStore;

/** A leaf_token row without its hash: what the admin API and the audit trail show. */
export interface TokenRow {
  id: string;
  name: string;
  tags: string[];
  /** ms since the Unix epoch. */
  createdAt: number;
  createdBy: string;
  revokedAt: number | null;
}

/** A token row with its SHA-256 (hex): what the ID routes' table is built from. */
export interface StoredToken extends TokenRow {
  tokenHash: string;
}

/**
 * leaf_token: per-tag access tokens. Creating and revoking write their leaf_audit row in the same transaction.
 */
export interface TokenStore {
  /** Every row, revoked ones included, oldest first. */
  listTokens(): Promise<StoredToken[]>;
  createToken(token: StoredToken, audit: AuditStamp): Promise<TokenRow>;
  /** Sets revoked_at (once: a revoked token stays as it was). `token_not_found` when missing. */
  revokeToken(id: string, at: number, audit: AuditStamp): Promise<TokenRow>;
}

/** A BIGINT read as text (or a small number) as an exact Id: a number up to 2^53−1, a bigint above. */
export function exactId(value: unknown, bizTag: string): Id {
  const id = parseId(value);
  if (id === undefined) throw new LeafError('store_unavailable', `Tag "${bizTag}" has max_id ${String(value)}, not a BIGINT.`);
  return id;
}

/** What an audit row records, besides the rows themselves. */
export type AuditAction = 'tag.semantics' | 'fleet.semantics' | 'tag.create' | 'tag.edit' | 'tag.raise' | 'tag.delete' | 'auth.login' | 'auth.login_failed' | 'auth.logout' | 'token.create' | 'token.revoke' | 'format.create' | 'format.edit' | 'format.delete';

/** Who changed something, from where, through which node, when (ms since the Unix epoch). */
export interface AuditStamp {
  /** `token:<first 8 hex of sha256(token)>`, `session:<id>`, or `anonymous` (a failed login). */
  actor: string;
  /** The client's socket address as server.ts saw it. */
  address: string;
  nodeId: string;
  at: number;
}

/** A tag row as the audit trail keeps it: the admin API's row, max_id as a decimal string. */
export interface AuditTagRow {
  bizTag: string;
  maxId: string;
  step: number;
  description: string | null;
  updateTime: string;
}

/** A semantics switch as the audit trail keeps it (`tag.semantics` with the tag row beside it, `fleet.semantics` alone). */
export interface AuditSemantics {
  /** Effective semantics. */
  semantics: Semantics;
  /** `after` only: leaf_alloc rows whose max_id grew by one. */
  bumped?: number;
}

export type AuditEntryRow = AuditTagRow | AuditSemantics | (AuditTagRow & AuditSemantics) | TokenRow | FormatRow;

export interface AuditRecord extends AuditStamp {
  id: number;
  action: AuditAction;
  bizTag: string | null;
  before: AuditEntryRow | null;
  after: AuditEntryRow | null;
}

export interface AuditQuery {
  /** Only rows with an id below this one (keyset pagination, newest first). */
  before?: number;
  limit: number;
  bizTag?: string;
}

/**
 * leaf_audit, append-only: there is no update or delete. Tag changes write their row inside their own transaction
 * (the `audit` argument of createTag, updateTag, raiseMaxId, deleteTag); logins append one on their own.
 */
export interface AuditStore {
  appendAudit(entry: AuditStamp & { action: AuditAction; bizTag?: string | null }): Promise<void>;
  /** Newest first (by id). */
  listAudit(query: AuditQuery): Promise<AuditRecord[]>;
}

/** The audit trail's copy of a row. */
export function auditTagRow(row: TagRow): AuditTagRow {
  return { bizTag: row.bizTag, maxId: String(row.maxId), step: row.step, description: row.description, updateTime: row.updateTime.toISOString() };
}

/** A leaf_format row (lib/format): times in ms since the Unix epoch, on the database's clock. */
export interface FormatRow {
  bizTag: string;
  pattern: string;
  resetPeriod: ResetPeriod;
  /** IANA name, canonical as Intl spells it. */
  timeZone: string;
  /** The first claim's size in each period; the floor of the dynamic step. */
  step: number;
  description: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One period's counter (leaf_format_period). */
export interface FormatPeriodRow {
  bizTag: string;
  /** '' (never), yyyy, yyyyMM or yyyyMMdd in the format's zone. */
  periodKey: string;
  /** The highest sequence number claimed in the period: how many IDs it has handed to nodes. */
  maxId: number;
  /** The size of the period's latest claim (0: it found the sequence used up). */
  step: number;
  updateTime: number;
}

export type NewFormat = Pick<FormatRow, 'bizTag' | 'pattern' | 'resetPeriod' | 'timeZone' | 'step'> & { description?: string | null };

export type FormatChanges = Partial<Pick<FormatRow, 'pattern' | 'timeZone' | 'step' | 'description'>>;

/** What one claim of a period got: sequence numbers maxId − count + 1 … maxId; count 0 when none were left. */
export interface PeriodClaim {
  maxId: number;
  count: number;
}

/** What the formatted-ID engine needs from a database. */
export interface FormatSource {
  /** Formats that exist (deleted ones left out). */
  listFormats(): Promise<FormatRow[]>;
  /**
   * One atomic statement: creates the period's row if missing and claims up to `step` sequence numbers above its
   * max_id, never past `cap` (10^width − 1). Two callers, in any processes, never get overlapping numbers.
   */
  claimPeriod(bizTag: string, periodKey: string, step: number, cap: number): Promise<PeriodClaim>;
  /**
   * A graceful stop gives back the unused top of this node's latest claim of a period: max_id from `claimedMaxId`
   * down to `newMaxId`, only while the row still holds `claimedMaxId` (SegmentSource.giveBack's compare-and-set).
   */
  giveBackPeriod(bizTag: string, periodKey: string, claimedMaxId: number, newMaxId: number): Promise<boolean>;
}

/**
 * leaf_format and leaf_format_period. Deleting a format marks its row deleted and keeps its periods, so re-creating
 * it continues above them and must keep the pattern's shape and reset (lib/format/rules.ts, `format_conflict`).
 * Each change writes its leaf_audit row in the same transaction.
 */
export interface FormatStore extends FormatSource {
  getFormat(bizTag: string): Promise<FormatRow | undefined>;
  /** The tag's periods, newest first; only `periodKeys` when given. */
  listFormatPeriods(bizTag: string, periodKeys?: string[]): Promise<FormatPeriodRow[]>;
  /** `tag_exists` when it exists; `format_conflict` when a deleted one had another shape or reset. */
  createFormat(format: NewFormat, audit: AuditStamp): Promise<FormatRow>;
  /** `tag_not_found` when missing; `format_conflict` for a pattern change other than a wider sequence. */
  updateFormat(bizTag: string, changes: FormatChanges, audit: AuditStamp): Promise<FormatRow>;
  /** `tag_not_found` when missing. */
  deleteFormat(bizTag: string, audit: AuditStamp): Promise<void>;
}
