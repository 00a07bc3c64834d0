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

/** Failures retried since the executor opened, by kind. */
export interface MysqlRetryStats {
  /** 1213: a deadlock, or a lost Galera certification. */
  certification: number;
  /** 1205 */
  lockWait: number;
  /** 1047 (1180 in flight): a Galera node outside the primary component. */
  notPrimary: number;
  connect: number;
  /** Lost connection or query timeout: retried only where running twice is harmless. */
  lostConnection: number;
}

const compile = compileFor(new MySqlDialect());

/** A SELECT's rows, or a write's OK packet. */
function answer<R>(result: unknown): ExecResult<R> {
  if (Array.isArray(result)) return { rows: result as R[], affected: 0 };
  const header = result as ResultSetHeader;
  return { rows: [], affected: header.affectedRows, insertId: header.insertId };
}

/** A statement of an attempt; `phase` says whether it can commit by itself (see retry.ts). */
type Run = <R = unknown>(text: string, values: unknown[], phase: Phase) => Promise<R>;

/** Per operation: a hot row claimed through three Galera nodes loses certification several times in a row. */
const ATTEMPTS = 8;

export interface MysqlOptions {
  /** mysql://user:pass@host:port[,host:port…]/database, or the same parsed. */
  url: string | MysqlTarget;
  /** Per host. */
  connectionLimit?: number;
  connectTimeoutMs?: number;
  /** Every query is bounded: a hung database is a typed error, not a hung request. */
  queryTimeoutMs?: number;
  /** `./drizzle` by default. */
  migrationsDir?: string;
  /** How long a host that failed is set aside. */
  restoreHostMs?: number;
}

/** The pool options of every host: exact BIGINTs (as decimal strings), UTC, utf8mb4. */
function poolOptions(target: MysqlTarget, connectionLimit: number, connectTimeoutMs: number): PoolOptions {
  return {
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

/** MySQL / MariaDB / Galera through one mysql2 pool per host (docs/design.md#executors-hosts-and-retries). */
export class MysqlExecutor implements ServerExecutor {
  readonly retries: MysqlRetryStats = { certification: 0, lockWait: 0, notPrimary: 0, connect: 0, lostConnection: 0 };
  private readonly cluster: PoolCluster;
  /** Per host: set aside until (performance.now()) after 1047 or a lost connection. */
  private readonly asideUntil: number[];
  private readonly namespaces = new Map<string, PoolNamespace>();
  /** Connections whose session was made causal. */
  private readonly causal = new WeakSet<object>();
  private closed = false;

  /** Migrations on the first reachable host, under a lock. */
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
    readonly target: MysqlTarget,
    readonly options: PoolOptions,
    private readonly queryTimeoutMs: number,
    private readonly restoreHostMs: number,
  ) {
    this.asideUntil = target.hosts.map(() => 0);
    const several = target.hosts.length > 1;
    // mysql2's failover: a host whose connect fails goes offline for restoreHostMs; one host is never set aside.
    this.cluster = mysql.createPoolCluster({
      canRetry: several,
      removeNodeErrorCount: several ? 1 : Number.MAX_SAFE_INTEGER,
      restoreNodeTimeout: restoreHostMs,
      defaultSelector: 'ORDER',
    });
    target.hosts.forEach((h, i) => this.cluster.add(hostId(i), { ...options, host: h.host, port: h.port }));
  }

  /** Retried whatever happened: running it twice changes nothing. */
  async read<R>(query: Query): Promise<R[]> {
    return (await this.write<R>(query, true)).rows;
  }

  /** Autocommit; whether it may run again after an unknown outcome has no default. */
  write<R>(query: Query, retryUnknown: boolean): Promise<ExecResult<R>> {
    const { sql: text, params } = compile(query);
    return this.attempt(retryUnknown, async (run) => answer<R>(await run(text, params, 'may-commit')));
  }

  async changedOne(query: Query, retryUnknown: boolean): Promise<boolean> {
    return (await this.write(query, retryUnknown)).affected === 1;
  }

  /** Run again after a failure before COMMIT (fn must be re-runnable); never after an unknown COMMIT. */
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

  /** A connection that failed below the server's error packets is destroyed: a late answer would be misread. */
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
          // Once per connection. UTC: NOW(3) is the session zone's wall time, which UNIX_TIMESTAMP reads back — in a
          // zone with daylight saving the database clock would jump an hour. Causal reads on Galera: a commit
          // through one node is applied on the others a little later.
          const core = conn.connection as object;
          if (!this.causal.has(core)) {
            await run("SET SESSION time_zone = '+00:00'", [], 'uncommitted');
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

  /** From the first allowed host; mysql2 moves down the list by itself when a connect fails. */
  private connection(exclude: ReadonlySet<number>): Promise<PoolConnection> {
    return this.namespace(allowedHosts(this.asideUntil, exclude, performance.now())).getConnection();
  }

  private namespace(allowed: number[]): PoolNamespace {
    const key = allowed.join(',');
    let ns = this.namespaces.get(key);
    if (ns === undefined) {
      // PoolCluster takes a RegExp as well as a glob (its typings say string); ORDER keeps the URL's order.
      const pattern =
        allowed.length === this.target.hosts.length
          ? '*'
          : (new RegExp(`^(${allowed.map(hostId).join('|')})$`) as unknown as string);
      ns = this.cluster.of(pattern, 'ORDER');
      this.namespaces.set(key, ns);
    }
    return ns;
  }

  /** Which of our hosts a pooled connection talks to. */
  private hostOf(conn: PoolConnection): number | undefined {
    const config = (conn.connection as unknown as { config?: { host?: string; port?: number } }).config;
    const i = this.target.hosts.findIndex((h) => h.host === config?.host && h.port === config?.port);
    return i === -1 ? undefined : i;
  }
}

function hostId(index: number): string {
  return `host${index}`;
}
