import { type Table, and, asc, eq, lt, sql } from 'drizzle-orm';
import { type MySql2Database, drizzle } from 'drizzle-orm/mysql2';
import mysql, { type Connection, type PoolCluster, type PoolConnection, type PoolNamespace, type PoolOptions, type ResultSetHeader } from 'mysql2/promise';
import { LeafError, storeUnavailable, tagNotFound } from '../errors';
import { MYSQL_NOW_MS as DB_NOW_MS } from './dbClock';
import { migrateMysql } from './migrate';
import { MysqlNodes } from './mysqlNodes';
import { auditInsert } from './auditRows';
import { insertAuditMysql, listAuditMysql } from './mysqlAudit';
import { createTokenMysql, listTokensMysql, revokeTokenMysql } from './mysqlTokens';
import { claimPeriodMysql, giveBackPeriodMysql, createFormatMysql, deleteFormatMysql, getFormatMysql, listFormatPeriodsMysql, listFormatsMysql, updateFormatMysql } from './mysqlFormats';
import { badStep, existingTag, fleetSwitchAudit, idSpaceExhausted, planCreate, planDefaultSwitch, planEdit, planRaise, planTagSwitch, tagExists, tagSwitchAudit } from './tagRules';
import { AttemptFault, ER_ERROR_DURING_COMMIT, ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT, ER_UNKNOWN_COM_ERROR, type Phase, type RetryFailure, classify, serverErrno, withRetries } from './mysqlErrors';
import {
  bumpDefaultFollowersMysql,
  bumpTagMysql,
  claimSemanticsMysql,
  claimStatementMysql,
  decodeClaimMysql,
  listSemanticsMysql,
  lockAllRowsMysql,
  lockSemanticsRowsMysql,
  writeSemanticsRowMysql,
} from './mysqlSemantics';
import { FLEET_DEFAULT_KEY, type Semantics } from '../segment/semantics';
import { type Id, idBigint } from '../segment/id';
import { type MysqlHost, type MysqlTarget, hostLabel, parseMysqlUrl } from './mysqlUrl';
import { leafAlloc, leafAllocTombstone, leafWorker } from './schema/mysql';
import type { Allocation, TagInfo } from '../segment/segmentSource';
import type { AuditAction, AuditStamp, AuditSemantics } from '../audit';
import type { AuditQuery, AuditRecord, AuditStore } from '../admin/auditStore';
import type { NewTag, TagChanges, TagRow } from '../admin/tagStore';
import type { LeafStore } from './leafStore';
import type { TagStore } from '../admin/tagStore';
import type { SemanticsStore } from '../segment/semanticsStore';
import type { TokenStore } from '../auth/tokenStore';
import type { FormatStore } from '../format/formatStore';
import type { SemanticsSettings, SemanticsSwitch } from '../segment/semanticsStore';
import type { HostHealth } from '../admin/hostHealth';
import { exactId } from './exactId';
import type { WorkerRow, WorkerStore } from '../snowflake/workerStore';
import type { NodeStore } from '../fleet/nodeStore';
import type { StoredToken, TokenRow } from '../auth/tokenStore';
import type { FormatChanges, FormatPeriodRow, FormatRow, NewFormat, PeriodClaim } from '../format/formatStore';


export interface MysqlStoreOptions {
  /** mysql://user:pass@host:port[,host:port…]/database, or the same parsed (lib/config.ts does it at start). */
  url: string | MysqlTarget;
  /** Per host. */
  connectionLimit?: number;
  connectTimeoutMs?: number;
  /** Every query is bounded: a hung database turns into a typed error, not a hung request. */
  queryTimeoutMs?: number;
  /** Root of the per-dialect migrations; `./drizzle` by default. */
  migrationsDir?: string;
  /** With several hosts: how long a host that failed is set aside before it is tried again. */
  restoreHostMs?: number;
}

/** Failures this store retried, by kind, since it opened (tests and diagnostics read them). */
export interface MysqlRetryStats {
  /** 1213: a deadlock, or on Galera a lost certification against a write committed on another node. */
  certification: number;
  /** 1205 */
  lockWait: number;
  /** 1047 (or 1180 on a statement in flight): a Galera node not in the primary component (or not synced). */
  notPrimary: number;
  /** No connection could be had from a host. */
  connect: number;
  /** The connection was lost or the query timed out: retried only where running twice is harmless. */
  lostConnection: number;
}

const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;

/**
 * Attempts per operation: a Galera certification conflict or a dead host costs one each. Eight, because one hot
 * row claimed through three nodes at once loses certification several times in a row (4 left ~4 % of such claims
 * failing on a real cluster, test/integration/galera-store.test.ts); the budget (queryTimeoutMs) still bounds them.
 */
const ATTEMPTS = 8;

/** A statement inside a transaction (it cannot commit by itself). */
type TxStatement = <R = unknown>(text: string, values: unknown[]) => Promise<R>;

/** The tag's row, locked until the transaction ends; undefined when there is none. */
async function lockRow(q: TxStatement, bizTag: string): Promise<TagRow | undefined> {
  const [row] = await q<AllocRow[]>('SELECT * FROM `leaf_alloc` WHERE biz_tag = ? FOR UPDATE', [bizTag]);
  return row === undefined ? undefined : toTagRow(row);
}

/** A statement of an attempt; `phase` says whether it can commit by itself (see mysqlErrors.ts). */
type Statement = <R = unknown>(text: string, values: unknown[], phase: Phase) => Promise<R>;

/**
 * A row of `table` as this store receives it: drizzle compiles the query, but mysql2 runs it (for the per-query
 * timeout), so rows are keyed by column name, not drizzle's field name, and BIGINT columns arrive as decimal
 * strings (bigNumberStrings), which exactId checks before they become numbers.
 */
type RawRow<T extends Table> = {
  [F in keyof T['$inferSelect'] & keyof T['_']['columns'] as T['_']['columns'][F]['_']['name']]: T['_']['columns'][F]['_']['columnType'] extends
    | 'MySqlBigInt53'
    | 'MySqlBigInt64'
    ? string
    : T['$inferSelect'][F];
};

type AllocRow = RawRow<typeof leafAlloc>;
type WorkerRawRow = RawRow<typeof leafWorker>;
type TombstoneRow = RawRow<typeof leafAllocTombstone>;

interface Compiled {
  toSQL(): { sql: string; params: unknown[] };
}

/**
 * MySQL / MariaDB through one mysql2 pool per host (a Galera cluster may list several). A claim is one statement,
 * `UPDATE … SET max_id = LAST_INSERT_ID(max_id + ?)`, atomic under InnoDB's row lock (and Galera's certification),
 * whose OK packet carries the new max_id: one round trip per segment. Failures are retried as mysqlErrors.ts rules.
 */
export class MysqlStore implements LeafStore, TagStore, SemanticsStore, WorkerStore, AuditStore, TokenStore, FormatStore {
  readonly dialect = 'mysql' as const;
  private readonly cluster: PoolCluster;
  private readonly target: MysqlTarget;
  private readonly connectionOptions: PoolOptions;
  /** Drizzle only compiles queries here; mysql2 runs them (per-query timeout, host choice, retries). */
  private readonly db: MySql2Database = drizzle.mock();
  private readonly queryTimeoutMs: number;
  private readonly restoreHostMs: number;
  /** Per host (URL order): until when it is set aside after 1047 or a lost connection (performance.now()). */
  private readonly asideUntil: number[];
  private readonly namespaces = new Map<string, PoolNamespace>();
  private closed = false;
  /** Pooled connections (mysql2's core Connection) whose session was made causal (see attempt). */
  private readonly causal = new WeakSet<object>();
  /** Retried failures by kind (never reset). */
  readonly retries: MysqlRetryStats = { certification: 0, lockWait: 0, notPrimary: 0, connect: 0, lostConnection: 0 };
  /** The fleet registry's statements (mysqlNodes.ts), run through this store's read/write rules. */
  readonly nodes: NodeStore = new MysqlNodes({ read: (q) => this.read(q), write: (q, retryUnknown) => this.write(q, retryUnknown) });
  readonly tags: TagStore = this;
  readonly semantics: SemanticsStore = this;
  readonly workers: WorkerStore = this;
  readonly formats: FormatStore = this;
  readonly tokens: TokenStore = this;
  readonly audit: AuditStore = this;

  private constructor(target: MysqlTarget, connectionOptions: PoolOptions, queryTimeoutMs: number, restoreHostMs: number) {
    this.target = target;
    this.connectionOptions = connectionOptions;
    this.queryTimeoutMs = queryTimeoutMs;
    this.restoreHostMs = restoreHostMs;
    this.asideUntil = target.hosts.map(() => 0);
    const several = target.hosts.length > 1;
    // mysql2's own failover: one pool per host, in the URL's order. With several hosts a host whose connect fails
    // goes offline at once (removeNodeErrorCount 1) for restoreHostMs, and canRetry moves the same getConnection
    // on to the next host — each at most once, since a failed one is offline. With one host there is nowhere to
    // go: it is never set aside (and canRetry is off, else it would loop on that host), exactly a single pool.
    this.cluster = mysql.createPoolCluster({
      canRetry: several,
      removeNodeErrorCount: several ? 1 : Number.MAX_SAFE_INTEGER,
      restoreNodeTimeout: restoreHostMs,
      defaultSelector: 'ORDER',
    });
    target.hosts.forEach((h, i) => this.cluster.add(hostId(i), { ...connectionOptions, host: h.host, port: h.port }));
  }

  /** Opens one pool per host and applies migrations on the first reachable host (under a lock, so nodes may start together). */
  static async open({
    url,
    connectionLimit = 8,
    connectTimeoutMs = 3_000,
    queryTimeoutMs = 5_000,
    migrationsDir,
    restoreHostMs = 5_000,
  }: MysqlStoreOptions): Promise<MysqlStore> {
    const target = typeof url === 'string' ? parseMysqlUrl(url) : url;
    const options: PoolOptions = {
      // Query options of the URL first: explicit options win, as they do over mysql2's own `uri`.
      ...target.options,
      user: target.user,
      password: target.password,
      database: target.database,
      connectionLimit,
      connectTimeout: connectTimeoutMs,
      enableKeepAlive: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      timezone: 'Z',
      charset: 'utf8mb4',
      maxIdle: connectionLimit,
      idleTimeout: 60_000,
    };
    await migrateOnFirstReachable(target.hosts, options, migrationsDir);
    return new MysqlStore(target, options, queryTimeoutMs, restoreHostMs);
  }

  async listTags(): Promise<TagInfo[]> {
    const rows = await this.read<Array<Pick<AllocRow, 'biz_tag' | 'step'>>>(
      this.db.select({ bizTag: leafAlloc.bizTag, step: leafAlloc.step }).from(leafAlloc).orderBy(asc(leafAlloc.bizTag)),
    );
    return rows.map((r) => ({ bizTag: r.biz_tag, step: r.step }));
  }

  async listTagRows(): Promise<TagRow[]> {
    const rows = await this.read<AllocRow[]>(this.db.select().from(leafAlloc).orderBy(asc(leafAlloc.bizTag)));
    return rows.map(toTagRow);
  }

  async getTag(bizTag: string): Promise<TagRow | undefined> {
    const rows = await this.read<AllocRow[]>(this.db.select().from(leafAlloc).where(eq(leafAlloc.bizTag, bizTag)));
    return rows[0] === undefined ? undefined : toTagRow(rows[0]);
  }

  async allocate(bizTag: string, step?: number): Promise<Allocation> {
    // Without an explicit step, read the row's step first and add exactly that: the segment's size is what we
    // added, even if an operator changes the step in between.
    const added = step ?? (await this.getTag(bizTag))?.step;
    if (added === undefined) throw tagNotFound(bizTag);
    if (!Number.isSafeInteger(added) || added < 1) throw badStep(bizTag, added);
    // A claim whose outcome is unknown may be claimed again (retryUnknown): the first one then counts as taken and
    // its segment is a gap. The segment comes only from the OK packet of the claim that answered — never from a
    // later read of max_id, which could include another node's claim (see withRetries). The same statement reads
    // the tag's semantics (mysqlSemantics.ts: why a switch cannot fall between, and how both come back in it).
    const claim = claimStatementMysql(bizTag, added);
    const header = await this.query<ResultSetHeader>(claim.text, claim.params, true);
    // affectedRows 0 leaves LAST_INSERT_ID stale: never read insertId then. The read below only names the refusal.
    if (header.affectedRows === 1) return { bizTag, step: added, ...decodeClaimMysql(header.insertId, bizTag) };
    const row = await this.getTag(bizTag);
    if (row === undefined) throw tagNotFound(bizTag);
    if (row.maxId < 0) throw new LeafError('tag_misconfigured', `Tag "${bizTag}" has max_id ${row.maxId}; a claim needs max_id of at least 0.`);
    throw idSpaceExhausted(bizTag);
  }

  /**
   * One statement, so Galera certifies it alone: a certification failure (1213) or an unknown outcome is not run
   * again and counts as nothing given back (a late commit of it is still safe: see SegmentSource.giveBack).
   */
  async giveBack(bizTag: string, claimedMaxId: Id, newMaxId: Id): Promise<boolean> {
    const update = this.db
      .update(leafAlloc)
      .set({ maxId: bigintParam(newMaxId) })
      .where(and(eq(leafAlloc.bizTag, bizTag), eq(leafAlloc.maxId, bigintParam(claimedMaxId))))
      .toSQL();
    const header = await this.query<ResultSetHeader>(update.sql, update.params, false);
    return header.affectedRows === 1;
  }

  getSemantics(): Promise<SemanticsSettings> {
    return listSemanticsMysql((text, params) => this.query(text, params, true));
  }

  tagSemantics(bizTag: string): Promise<Semantics> {
    return claimSemanticsMysql((text, params) => this.query(text, params, true), bizTag);
  }

  /**
   * Like the other admin writes: a transaction run again after a certification failure (1213, a claim of a
   * follower's row committed first on another Galera node), never after an unknown outcome (the audit row).
   */
  async setDefaultSemantics(semantics: Semantics, audit?: AuditStamp): Promise<SemanticsSwitch> {
    // Already so (every node start with LEAF_SEGMENT_SEMANTICS asks): no need to lock every row to find out.
    const current = planDefaultSwitch((await this.getSemantics()).default, semantics);
    if (!current.changes) return { before: current.before, after: current.after, bumped: 0 };
    return this.transaction(async (q) => {
      await lockAllRowsMysql(q);
      const plan = planDefaultSwitch((await lockSemanticsRowsMysql(q)).fleet, semantics);
      if (!plan.changes) return { before: plan.before, after: plan.after, bumped: 0 };
      const bumped = await bumpDefaultFollowersMysql(q, plan.bump);
      await writeSemanticsRowMysql(q, FLEET_DEFAULT_KEY, semantics);
      if (audit !== undefined) await insertAuditMysql(this.db, q, fleetSwitchAudit(audit, plan, bumped));
      return { before: plan.before, after: plan.after, bumped };
    });
  }

  async setTagSemantics(bizTag: string, semantics: Semantics | null, audit?: AuditStamp): Promise<SemanticsSwitch> {
    return this.transaction(async (q) => {
      const row = existingTag(bizTag, await lockRow(q, bizTag));
      const plan = planTagSwitch(await lockSemanticsRowsMysql(q, bizTag), semantics);
      await bumpTagMysql(q, bizTag, plan.bump);
      if (plan.writesRow) await writeSemanticsRowMysql(q, bizTag, semantics);
      if (audit !== undefined && plan.writesRow) await insertAuditMysql(this.db, q, tagSwitchAudit(audit, plan, row, (await lockRow(q, bizTag)) as TagRow, plan.bump));
      return { before: plan.before, after: plan.after, bumped: plan.bump };
    });
  }

  async createTag({ bizTag, step, maxId, description = null }: NewTag, audit?: AuditStamp): Promise<TagRow> {
    return this.transaction(async (q) => {
      // FOR UPDATE locks the tombstone (or its gap), so a concurrent delete cannot slip a lower row in.
      const [tomb] = await q<Array<Pick<TombstoneRow, 'max_id'>>>(
        'SELECT max_id FROM `leaf_alloc_tombstone` WHERE biz_tag = ? FOR UPDATE',
        [bizTag],
      );
      const tombstoneMax = tomb === undefined ? undefined : exactId(tomb.max_id, bizTag);
      const startAt = planCreate({ bizTag, maxId }, tombstoneMax);
      const insert = this.db.insert(leafAlloc).ignore().values({ bizTag, step, maxId: bigintParam(startAt), description }).toSQL();
      const header = await q<ResultSetHeader>(insert.sql, insert.params);
      if (header.affectedRows === 0) throw tagExists(bizTag);
      if (tombstoneMax !== undefined) await q('DELETE FROM `leaf_alloc_tombstone` WHERE biz_tag = ?', [bizTag]);
      const after = (await lockRow(q, bizTag)) as TagRow;
      if (audit !== undefined) await this.recordAudit(q, audit, 'tag.create', bizTag, undefined, after);
      return after;
    });
  }

  /**
   * Edits and raises are transactions (row locked, change, row read again, audit row, commit) so the audit row
   * commits with the change or not at all. Like create and delete, an unknown outcome of the COMMIT is not
   * retried (the audit row would be written twice): the caller gets store_unavailable and may look and repeat.
   */
  async updateTag(bizTag: string, changes: TagChanges, audit?: AuditStamp): Promise<TagRow> {
    const update = this.db.update(leafAlloc).set({ ...planEdit(changes), updateTime: sql`CURRENT_TIMESTAMP` }).where(eq(leafAlloc.bizTag, bizTag)).toSQL();
    return this.transaction(async (q) => {
      const before = existingTag(bizTag, await lockRow(q, bizTag));
      await q(update.sql, update.params);
      const after = (await lockRow(q, bizTag)) as TagRow;
      if (audit !== undefined) await this.recordAudit(q, audit, 'tag.edit', bizTag, before, after);
      return after;
    });
  }

  async raiseMaxId(bizTag: string, maxId: Id, audit?: AuditStamp): Promise<TagRow> {
    return this.transaction(async (q) => {
      // FOR UPDATE: no claim can move max_id between this check and the update (a Galera claim on another node
      // that commits first makes this transaction fail certification, and it is run again, check included).
      const before = existingTag(bizTag, await lockRow(q, bizTag));
      const raise = this.db.update(leafAlloc).set({ maxId: bigintParam(planRaise(before, maxId)) }).where(eq(leafAlloc.bizTag, bizTag)).toSQL();
      await q(raise.sql, raise.params);
      const after = (await lockRow(q, bizTag)) as TagRow;
      if (audit !== undefined) await this.recordAudit(q, audit, 'tag.raise', bizTag, before, after);
      return after;
    });
  }

  async deleteTag(bizTag: string, audit?: AuditStamp): Promise<{ maxId: Id }> {
    return this.transaction(async (q) => {
      const before = existingTag(bizTag, await lockRow(q, bizTag));
      const maxId = before.maxId;
      await q(
        'INSERT INTO `leaf_alloc_tombstone` (biz_tag, max_id) VALUES (?, ?) ' +
          'ON DUPLICATE KEY UPDATE max_id = GREATEST(max_id, VALUES(max_id)), deleted_at = CURRENT_TIMESTAMP',
        [bizTag, idBigint(maxId)],
      );
      await q('DELETE FROM `leaf_alloc` WHERE biz_tag = ?', [bizTag]);
      if (audit !== undefined) await this.recordAudit(q, audit, 'tag.delete', bizTag, before, undefined);
      return { maxId };
    });
  }

  async appendAudit(entry: AuditStamp & { action: AuditAction; bizTag?: string | null }): Promise<void> {
    // Not retried after an unknown outcome: the row would be written twice.
    await insertAuditMysql(this.db, (text, params) => this.query(text, params, false), auditInsert(entry, entry.action, entry.bizTag ?? null, undefined, undefined));
  }

  listAudit(query: AuditQuery): Promise<AuditRecord[]> {
    return listAuditMysql(this.db, (text, params) => this.query(text, params, true), query);
  }

  listTokens(): Promise<StoredToken[]> {
    return listTokensMysql(this.db, (text, params) => this.query(text, params, true));
  }

  createToken(token: StoredToken, audit: AuditStamp): Promise<TokenRow> {
    return this.transaction((q) => createTokenMysql(this.db, q, token, audit));
  }

  revokeToken(id: string, at: number, audit: AuditStamp): Promise<TokenRow> {
    return this.transaction((q) => revokeTokenMysql(this.db, q, id, at, audit));
  }

  listFormats(): Promise<FormatRow[]> {
    return listFormatsMysql(this.db, (text, params) => this.query(text, params, true));
  }

  getFormat(bizTag: string): Promise<FormatRow | undefined> {
    return getFormatMysql((text, params) => this.query(text, params, true), bizTag);
  }

  listFormatPeriods(bizTag: string, periodKeys?: string[]): Promise<FormatPeriodRow[]> {
    return listFormatPeriodsMysql(this.db, (text, params) => this.query(text, params, true), bizTag, periodKeys);
  }

  /** Retried after an unknown outcome, like a segment claim: a claim that did land is then a gap, never a repeat. */
  claimPeriod(bizTag: string, periodKey: string, step: number, cap: number): Promise<PeriodClaim> {
    return claimPeriodMysql((text, params) => this.query(text, params, true), bizTag, periodKey, step, cap);
  }

  giveBackPeriod(bizTag: string, periodKey: string, claimedMaxId: number, newMaxId: number): Promise<boolean> {
    return giveBackPeriodMysql(this.db, (text, params) => this.query(text, params, false), bizTag, periodKey, claimedMaxId, newMaxId);
  }

  createFormat(format: NewFormat, audit: AuditStamp): Promise<FormatRow> {
    return this.transaction((q) => createFormatMysql(this.db, q, format, audit));
  }

  updateFormat(bizTag: string, changes: FormatChanges, audit: AuditStamp): Promise<FormatRow> {
    return this.transaction((q) => updateFormatMysql(this.db, q, bizTag, changes, audit));
  }

  deleteFormat(bizTag: string, audit: AuditStamp): Promise<void> {
    return this.transaction((q) => deleteFormatMysql(this.db, q, bizTag, audit));
  }

  private recordAudit(
    q: TxStatement,
    stamp: AuditStamp,
    action: AuditAction,
    bizTag: string,
    before: TagRow | (TagRow & AuditSemantics) | undefined,
    after: TagRow | (TagRow & AuditSemantics) | undefined,
  ): Promise<void> {
    return insertAuditMysql(this.db, q, auditInsert(stamp, action, bizTag, before, after));
  }

  async getTombstone(bizTag: string): Promise<{ maxId: Id } | undefined> {
    const rows = await this.read<Array<Pick<TombstoneRow, 'max_id'>>>(
      this.db.select({ maxId: leafAllocTombstone.maxId }).from(leafAllocTombstone).where(eq(leafAllocTombstone.bizTag, bizTag)),
    );
    return rows[0] === undefined ? undefined : { maxId: exactId(rows[0].max_id, bizTag) };
  }

  /**
   * One connection, BEGIN … COMMIT; any throw rolls back. Every statement keeps the query timeout. A failure
   * before COMMIT was sent changed nothing, so the whole transaction is run again (fn must be re-runnable); a lost
   * answer to COMMIT is an unknown outcome and is not retried: the caller gets store_unavailable.
   */
  private transaction<T>(fn: (q: TxStatement) => Promise<T>): Promise<T> {
    return this.attempt(false, async (q, rollback) => {
      try {
        await q('BEGIN', [], 'uncommitted');
        const result = await fn((text, values) => q(text, values, 'uncommitted'));
        await q('COMMIT', [], 'may-commit');
        return result;
      } catch (error) {
        await rollback();
        throw error;
      }
    });
  }

  async listWorkers(): Promise<WorkerRow[]> {
    const rows = await this.read<WorkerRawRow[]>(this.db.select().from(leafWorker).orderBy(asc(leafWorker.workerId)));
    return rows.map((r) => ({
      workerId: r.worker_id,
      nodeId: r.node_id,
      instanceId: r.instance_id,
      // ms timestamps: far below 2^53, so Number is exact.
      leaseExpiresAt: Number(r.lease_expires_at),
      lastTimestamp: Number(r.last_timestamp),
      heartbeatAt: Number(r.heartbeat_at),
    }));
  }

  async claimOwnWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.changed(
      this.db
        .update(leafWorker)
        .set({ instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, heartbeatAt: DB_NOW_MS })
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.nodeId, nodeId))),
      true, // run twice it still matches only our node's row
    );
  }

  async claimFreeWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    // INSERT IGNORE: a duplicate key (another node won the id) is 0 rows, not an error.
    const insert = this.db
      .insert(leafWorker)
      .ignore()
      .values({ workerId, nodeId, instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, lastTimestamp: 0, heartbeatAt: DB_NOW_MS });
    // Not retried after an unknown outcome: a second run would say "taken" about our own row. The next
    // acquisition finds the row under our node id instead (claimOwnWorker).
    return this.changed(insert, false);
  }

  async claimExpiredWorker(workerId: number, nodeId: string, instanceId: string, leaseMs: number): Promise<boolean> {
    return this.changed(
      this.db
        .update(leafWorker)
        .set({ nodeId, instanceId, leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`, heartbeatAt: DB_NOW_MS })
        .where(and(eq(leafWorker.workerId, workerId), lt(leafWorker.leaseExpiresAt, DB_NOW_MS))),
      false, // as claimFreeWorker: a second run would find the lease live (ours) and say no
    );
  }

  async readWorkerFence(workerId: number, instanceId: string): Promise<number | undefined> {
    const rows = await this.read<Array<Pick<WorkerRawRow, 'last_timestamp'>>>(
      this.db
        .select({ lastTimestamp: leafWorker.lastTimestamp })
        .from(leafWorker)
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId))),
    );
    return rows[0] === undefined ? undefined : Number(rows[0].last_timestamp);
  }

  async renewWorker(workerId: number, instanceId: string, leaseMs: number, reserveUntilMs: number): Promise<boolean> {
    return this.changed(
      this.db
        .update(leafWorker)
        .set({
          leaseExpiresAt: sql`${DB_NOW_MS} + ${leaseMs}`,
          heartbeatAt: DB_NOW_MS,
          lastTimestamp: sql`GREATEST(${leafWorker.lastTimestamp}, ${reserveUntilMs})`,
        })
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId))),
      // Idempotent (same instance, GREATEST), so retried — on another host too: every Galera node holds the same
      // row, and a minority node refuses with 1047 instead of answering. Only an answered renewal counts: when none
      // comes within the attempts, this throws and the node keeps issuing only below its old reservation.
      true,
    );
  }

  async releaseWorker(workerId: number, instanceId: string, lastTimestampMs: number): Promise<void> {
    await this.write(
      this.db
        .update(leafWorker)
        .set({ leaseExpiresAt: 0, lastTimestamp: lastTimestampMs }) // the generator is stopped: what it used is the fence
        .where(and(eq(leafWorker.workerId, workerId), eq(leafWorker.instanceId, instanceId))),
      true, // the same values again
    );
  }

  private async changed(query: Compiled, retryUnknown: boolean): Promise<boolean> {
    const header = await this.write<ResultSetHeader>(query, retryUnknown);
    return header.affectedRows === 1;
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1', [], true);
  }


  /**
   * Each host on its own, in parallel, each within `timeoutMs`: a fresh connection straight to that host (not the
   * cluster's selector, which would hide which host answered), `SELECT 1`, then its Galera status when it has one.
   */
  hosts(timeoutMs = 1_000): Promise<HostHealth[]> {
    return Promise.all(this.target.hosts.map((h) => probeHost(h, this.connectionOptions, timeoutMs)));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.cluster.end();
  }

  /** A read: retried whatever happened, since running it twice changes nothing. */
  private read<T>(query: Compiled): Promise<T> {
    const { sql: text, params } = query.toSQL();
    return this.query<T>(text, params, true);
  }

  /**
   * A write. Each caller says whether it may run again after an unknown outcome (the connection died after it was
   * sent): only where doing it twice is harmless — there is no default, so a new write cannot inherit the reads' yes.
   */
  private write<T>(query: Compiled, retryUnknown: boolean): Promise<T> {
    const { sql: text, params } = query.toSQL();
    return this.query<T>(text, params, retryUnknown);
  }

  private query<T>(text: string, values: unknown[], retryUnknown: boolean): Promise<T> {
    return this.attempt(retryUnknown, (q) => q<T>(text, values, 'may-commit'));
  }

  /**
   * Runs `work` on a connection from the preferred host, again on failure as withRetries decides (mysqlErrors.ts
   * holds the rules). A connection that failed below the server's own error packets (lost, timed out) is
   * destroyed, never returned to its pool: a late answer on it would be read as the next statement's.
   */
  private attempt<T>(retryUnknown: boolean, work: (q: Statement, rollback: () => Promise<void>) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(storeUnavailable(new Error('the store is closed')));
    return withRetries(
      async ({ exclude }) => {
        let conn: PoolConnection;
        try {
          conn = await this.connection(exclude);
        } catch (error) {
          throw new AttemptFault('connect', error);
        }
        const host = this.hostOf(conn);
        let broken = false;
        const q: Statement = async <R,>(text: string, values: unknown[], phase: Phase): Promise<R> => {
          try {
            const [result] = await conn.query({ sql: text, values, timeout: this.queryTimeoutMs });
            return result as R;
          } catch (error) {
            if (serverErrno(error) === undefined) broken = true;
            throw new AttemptFault(phase, error, host);
          }
        };
        const rollback = async () => {
          if (broken) return; // the server rolls back a transaction whose connection is gone
          await conn.query({ sql: 'ROLLBACK', timeout: this.queryTimeoutMs }).catch(() => {
            broken = true;
          });
        };
        try {
          // Once per connection: causal reads and writes. A Galera node acknowledges a commit once the others
          // have it, but applies it on them a little later: without this, a tag created through one node was "not
          // found" by an update or claim through another right after (galera-store.test.ts). On a server without
          // Galera the variable does nothing; where it does not exist at all (MySQL: 1193) it is not needed.
          const core = conn.connection as object;
          if (!this.causal.has(core)) {
            await q('SET SESSION wsrep_sync_wait = 7', [], 'uncommitted').catch((fault: AttemptFault) => {
              if (serverErrno(fault.cause) !== ER_UNKNOWN_SYSTEM_VARIABLE) throw fault;
            });
            this.causal.add(core);
          }
          return await work(q, rollback);
        } finally {
          if (broken) conn.destroy();
          else conn.release();
        }
      },
      {
        attempts: ATTEMPTS,
        budgetMs: this.queryTimeoutMs,
        retryUnknown,
        onHostFault: (host) => {
          if (this.target.hosts.length > 1) this.asideUntil[host] = performance.now() + this.restoreHostMs;
        },
        onRetry: (failure, phase) => this.countRetry(failure, phase),
      },
      ({ cause }) => storeUnavailable(cause),
    );
  }

  private countRetry({ cause }: RetryFailure, phase: Phase): void {
    const errno = serverErrno(cause);
    if (phase === 'connect') this.retries.connect++;
    else if (errno === ER_LOCK_DEADLOCK) this.retries.certification++;
    else if (errno === ER_LOCK_WAIT_TIMEOUT) this.retries.lockWait++;
    else if (errno === ER_UNKNOWN_COM_ERROR || errno === ER_ERROR_DURING_COMMIT) this.retries.notPrimary++;
    else this.retries.lostConnection++;
  }

  /**
   * A connection from the first host (URL order) that is neither set aside nor already failed in this operation;
   * mysql2 moves on down that list by itself when a connect fails. When every host is excluded, all are allowed
   * again rather than none.
   */
  private connection(exclude: ReadonlySet<number>): Promise<PoolConnection> {
    const now = performance.now();
    const all = this.target.hosts.map((_, i) => i);
    const untried = all.filter((i) => !exclude.has(i));
    const fresh = untried.filter((i) => this.asideUntil[i] <= now);
    const allowed = fresh.length > 0 ? fresh : untried.length > 0 ? untried : all;
    return this.namespace(allowed).getConnection();
  }

  private namespace(allowed: number[]): PoolNamespace {
    const key = allowed.join(',');
    let ns = this.namespaces.get(key);
    if (ns === undefined) {
      // mysql2's PoolCluster takes a RegExp pattern as well as a glob (lib/pool_cluster.js, patternRegExp); its
      // typings only say string. Nodes keep the order they were added in, so ORDER still prefers the URL's order.
      const pattern = allowed.length === this.target.hosts.length ? '*' : (new RegExp(`^(${allowed.map(hostId).join('|')})$`) as unknown as string);
      ns = this.cluster.of(pattern, 'ORDER');
      this.namespaces.set(key, ns);
    }
    return ns;
  }

  /** Which of our hosts a pooled connection talks to (each pool was created with its host's own address). */
  private hostOf(conn: PoolConnection): number | undefined {
    const config = (conn.connection as unknown as { config?: { host?: string; port?: number } }).config;
    const i = this.target.hosts.findIndex((h) => h.host === config?.host && h.port === config?.port);
    return i === -1 ? undefined : i;
  }
}

function hostId(index: number): string {
  return `host${index}`;
}

/**
 * Migrations run once, at start, on the first host (URL order) that connects and is ready; a host that refuses in
 * a way another host would not (unreachable, 1047 outside the primary component) is skipped, anything else stops
 * the start.
 */
async function migrateOnFirstReachable(hosts: MysqlHost[], options: PoolOptions, migrationsDir: string | undefined): Promise<void> {
  let last: unknown;
  for (const h of hosts) {
    let conn: Connection;
    try {
      conn = await mysql.createConnection({ ...options, host: h.host, port: h.port });
    } catch (error) {
      last = error;
      continue;
    }
    try {
      await migrateMysql(conn, migrationsDir);
      return;
    } catch (error) {
      if (!classify(error, 'uncommitted').moveHost) throw error;
      last = error;
    } finally {
      await conn.end().catch(() => conn.destroy());
    }
  }
  throw last;
}

/** Status variables of a Galera node (SHOW STATUS LIKE 'wsrep_%'); absent on a server without wsrep. */
function galeraOf(rows: Array<{ Variable_name: string; Value: string }>): HostHealth['galera'] {
  const v = new Map(rows.map((r) => [r.Variable_name.toLowerCase(), r.Value]));
  // A MariaDB built with wsrep but not running it shows a few wsrep_% variables with no provider: not Galera.
  const provider = v.get('wsrep_provider_name');
  if (v.get('wsrep_local_state_comment') === undefined || provider === undefined || provider === '') return undefined;
  return {
    state: v.get('wsrep_local_state_comment') ?? '',
    clusterSize: Number(v.get('wsrep_cluster_size') ?? 0),
    ready: v.get('wsrep_ready') === 'ON',
    clusterStatus: v.get('wsrep_cluster_status') ?? '',
  };
}

async function probeHost(h: MysqlHost, options: PoolOptions, timeoutMs: number): Promise<HostHealth> {
  const host = hostLabel(h);
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  let conn: Connection | undefined;
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const probe = async (): Promise<HostHealth> => {
    const c = await mysql.createConnection({ ...options, host: h.host, port: h.port, connectTimeout: timeoutMs });
    if (timedOut) {
      c.destroy(); // connected after we gave up on it
      throw new Error('late');
    }
    conn = c;
    await c.query({ sql: 'SELECT 1', timeout: timeoutMs });
    const latencyMs = elapsed();
    const [rows] = await c.query({ sql: "SHOW GLOBAL STATUS LIKE 'wsrep\\_%'", timeout: timeoutMs });
    const galera = galeraOf(rows as Array<{ Variable_name: string; Value: string }>);
    return { host, reachable: true, latencyMs, ...(galera === undefined ? {} : { galera }) };
  };
  try {
    return await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(Object.assign(new Error('timeout'), { code: 'TIMEOUT' }));
        }, timeoutMs);
      }),
    ]);
  } catch (error) {
    // A short code (ECONNREFUSED, ER_ACCESS_DENIED_ERROR, TIMEOUT), never the driver's message.
    const code = (error as { code?: unknown }).code;
    return { host, reachable: false, latencyMs: elapsed(), error: typeof code === 'string' ? code : 'ERROR' };
  } finally {
    clearTimeout(timer);
    conn?.destroy();
  }
}

/** An Id written to a BIGINT column: a bigint parameter, which mysql2 writes as an exact integer literal. */
function bigintParam(id: Id) {
  return sql`${idBigint(id)}`;
}

function toTagRow(r: AllocRow): TagRow {
  return {
    bizTag: r.biz_tag,
    maxId: exactId(r.max_id, r.biz_tag),
    step: r.step,
    description: r.description,
    updateTime: r.update_time,
  };
}
