import mysql, {
  type PoolCluster,
  type PoolConnection,
  type PoolNamespace,
  type PoolOptions,
  type ResultSetHeader,
} from 'mysql2/promise';
import { MySqlDialect } from 'drizzle-orm/mysql-core';
import { storeUnavailable } from '../../errors';
import { AttemptFault, type Phase, type RetryFailure, allowedHosts, withRetries } from '../retry';
import {
  ER_ERROR_DURING_COMMIT,
  ER_LOCK_DEADLOCK,
  ER_LOCK_WAIT_TIMEOUT,
  ER_UNKNOWN_COM_ERROR,
  ER_UNKNOWN_SYSTEM_VARIABLE,
  classify,
  serverErrno,
} from './errors';
import type { ExecResult, Query, ServerExecutor, Tx } from '../serverExecutor';
import { compileFor } from '../server/compile';
import { migrateOnFirstReachable } from './migrate';
import { type MysqlTarget, parseMysqlUrl } from './url';

/** Failures the executor retried, by kind, since it opened (tests and diagnostics read them). */
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

const compile = compileFor(new MySqlDialect());

/** mysql2's answer as every executor gives it: a SELECT's rows, or a write's OK packet. */
function answer<R>(result: unknown): ExecResult<R> {
  if (Array.isArray(result)) return { rows: result as R[], affected: 0 };
  const header = result as ResultSetHeader;
  return { rows: [], affected: header.affectedRows, insertId: header.insertId };
}

/** A statement of an attempt; `phase` says whether it can commit by itself (see retry.ts). */
type Run = <R = unknown>(text: string, values: unknown[], phase: Phase) => Promise<R>;

/**
 * Attempts per operation: a Galera certification conflict or a dead host costs one each. Eight, because one hot
 * row claimed through three nodes at once loses certification several times in a row (4 left ~4 % of such claims
 * failing on a real cluster, test/cluster/galeraStore.test.ts); the budget (queryTimeoutMs) still bounds them.
 */
const ATTEMPTS = 8;

export interface MysqlOptions {
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

/** The pool options of every host: exact BIGINTs (as decimal strings), UTC, utf8mb4. */
function poolOptions(target: MysqlTarget, connectionLimit: number, connectTimeoutMs: number): PoolOptions {
  return {
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
}

/**
 * MySQL / MariaDB through one mysql2 pool per host (a Galera cluster may list several): drizzle only compiles
 * (sql.ts), mysql2 runs each statement with the per-query timeout on a connection from the first host that is neither
 * set aside nor already failed in this operation, again on failure as retry.ts decides with errors.ts's reading.
 * Every write says whether it may run again after an unknown outcome; a transaction never does.
 */
export class MysqlExecutor implements ServerExecutor {
  /** Retried failures by kind (never reset). */
  readonly retries: MysqlRetryStats = { certification: 0, lockWait: 0, notPrimary: 0, connect: 0, lostConnection: 0 };
  private readonly cluster: PoolCluster;
  /** Per host (URL order): until when it is set aside after 1047 or a lost connection (performance.now()). */
  private readonly asideUntil: number[];
  private readonly namespaces = new Map<string, PoolNamespace>();
  /** Pooled connections (mysql2's core Connection) whose session was made causal (see attempt). */
  private readonly causal = new WeakSet<object>();
  private closed = false;

  /** Opens one pool per host and applies migrations on the first reachable host (under a lock, so nodes may start together). */
  static async open({
    url,
    connectionLimit = 8,
    connectTimeoutMs = 3_000,
    queryTimeoutMs = 5_000,
    migrationsDir,
    restoreHostMs = 5_000,
  }: MysqlOptions): Promise<MysqlExecutor> {
    const target = typeof url === 'string' ? parseMysqlUrl(url) : url;
    const options = poolOptions(target, connectionLimit, connectTimeoutMs);
    await migrateOnFirstReachable(target.hosts, options, migrationsDir);
    return new MysqlExecutor(target, options, queryTimeoutMs, restoreHostMs);
  }

  private constructor(
    /** The URL's hosts, in order, and credentials. */
    readonly target: MysqlTarget,
    /** What every host's pool connects with (a probe of one host uses the same). */
    readonly options: PoolOptions,
    private readonly queryTimeoutMs: number,
    private readonly restoreHostMs: number,
  ) {
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
    target.hosts.forEach((h, i) => this.cluster.add(hostId(i), { ...options, host: h.host, port: h.port }));
  }

  /** A read: retried whatever happened, since running it twice changes nothing. */
  async read<R>(query: Query): Promise<R[]> {
    return (await this.write<R>(query, true)).rows;
  }

  /**
   * A write on its own (autocommit). Each caller says whether it may run again after an unknown outcome (the
   * connection died after it was sent): only where doing it twice is harmless — there is no default, so a new write
   * cannot inherit the reads' yes.
   */
  write<R>(query: Query, retryUnknown: boolean): Promise<ExecResult<R>> {
    const { sql: text, params } = compile(query);
    return this.attempt(retryUnknown, async (run) => answer<R>(await run(text, params, 'may-commit')));
  }

  /** A conditional write (a claim): true when it changed exactly one row. */
  async changedOne(query: Query, retryUnknown: boolean): Promise<boolean> {
    return (await this.write(query, retryUnknown)).affected === 1;
  }

  /**
   * One connection, BEGIN … COMMIT; any throw rolls back. Every statement keeps the query timeout. A failure
   * before COMMIT was sent changed nothing, so the whole transaction is run again (fn must be re-runnable); a lost
   * answer to COMMIT is an unknown outcome and is not retried: the caller gets store_unavailable.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.attempt(false, async (run, rollback) => {
      try {
        await run('BEGIN', [], 'uncommitted');
        const result = await fn(async <R>(query: Query) => {
          const { sql: text, params } = compile(query);
          return answer<R>(await run(text, params, 'uncommitted'));
        });
        await run('COMMIT', [], 'may-commit');
        return result;
      } catch (error) {
        await rollback();
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.cluster.end();
  }

  /**
   * Runs `work` on a connection from the preferred host, again on failure as withRetries decides. A connection that
   * failed below the server's own error packets (lost, timed out) is destroyed, never returned to its pool: a late
   * answer on it would be read as the next statement's.
   */
  private attempt<T>(retryUnknown: boolean, work: (run: Run, rollback: () => Promise<void>) => Promise<T>): Promise<T> {
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
        const run: Run = async <R>(text: string, values: unknown[], phase: Phase): Promise<R> => {
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
          // found" by an update or claim through another right after (galeraStore.test.ts). On a server without
          // Galera the variable does nothing; where it does not exist at all (MySQL: 1193) it is not needed.
          const core = conn.connection as object;
          if (!this.causal.has(core)) {
            await run('SET SESSION wsrep_sync_wait = 7', [], 'uncommitted').catch((fault: AttemptFault) => {
              if (serverErrno(fault.cause) !== ER_UNKNOWN_SYSTEM_VARIABLE) throw fault;
            });
            this.causal.add(core);
          }
          return await work(run, rollback);
        } finally {
          if (broken) conn.destroy();
          else conn.release();
        }
      },
      {
        classify,
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

  /** A connection from the first allowed host (retry.ts's allowedHosts); mysql2 moves on down that list by itself when a connect fails. */
  private connection(exclude: ReadonlySet<number>): Promise<PoolConnection> {
    return this.namespace(allowedHosts(this.asideUntil, exclude, performance.now())).getConnection();
  }

  private namespace(allowed: number[]): PoolNamespace {
    const key = allowed.join(',');
    let ns = this.namespaces.get(key);
    if (ns === undefined) {
      // mysql2's PoolCluster takes a RegExp pattern as well as a glob (lib/pool_cluster.js, patternRegExp); its
      // typings only say string. Nodes keep the order they were added in, so ORDER still prefers the URL's order.
      const pattern =
        allowed.length === this.target.hosts.length
          ? '*'
          : (new RegExp(`^(${allowed.map(hostId).join('|')})$`) as unknown as string);
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
