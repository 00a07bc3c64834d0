import pg from 'pg';
import { LeafError, storeUnavailable } from '../../errors';
import { AttemptFault, type Phase, type RetryFailure, allowedHosts, withRetries } from '../retry';
import { hostLabel } from '../serverUrl';
import { PgDialect } from 'drizzle-orm/pg-core';
import { compileFor } from '../server/compile';
import type { ExecResult, Query, ServerExecutor, Tx } from '../serverExecutor';
import {
  DEADLOCK_DETECTED,
  NotPrimary,
  READ_ONLY_SQL_TRANSACTION,
  SERIALIZATION_FAILURE,
  SyncCommitUnacknowledged,
  classify,
  isSyncWaitCancelled,
  serverError,
} from './errors';
import { migrateOnPrimary } from './migrate';
import { type PgConfig, poolConfig } from './pool';
import { type PostgresTarget, parsePostgresUrl } from './url';

/** Failures retried since the executor opened, by kind. */
export interface PostgresRetryStats {
  /** 40001 / 40P01 */
  serialization: number;
  /** A host that is not the writable primary. */
  notPrimary: number;
  connect: number;
  /** Lost connection, timeout, unacknowledged synchronous commit: retried only where harmless. */
  lostConnection: number;
}

/** Rows keyed by column name (int8 as decimal strings), and how many rows it touched. */
export interface PgResult<R = Record<string, unknown>> {
  rows: R[];
  rowCount: number;
}

type Run = (text: string, values: unknown[], phase: Phase) => Promise<PgResult>;

const compile = compileFor(new PgDialect());

function answer<R>(result: PgResult): ExecResult<R> {
  return { rows: result.rows as R[], affected: result.rowCount };
}

const ATTEMPTS = 8;

export interface PostgresOptions {
  /** postgres://user:pass@host:port[,host:port…]/database, or the same parsed. */
  url: string | PostgresTarget;
  /** Per host. */
  connectionLimit?: number;
  /** Connecting and waiting for a pooled connection, per host. */
  connectTimeoutMs?: number;
  /** Every statement, bounded from the client side (a commit waiting for a sync standby too). */
  queryTimeoutMs?: number;
  migrationsDir?: string;
  /** How long a host that failed is set aside. */
  restoreHostMs?: number;
}

/** PostgreSQL through one node-postgres pool per host, only ever on the primary (docs/design.md#executors-hosts-and-retries). */
export class PostgresExecutor implements ServerExecutor {
  readonly retries: PostgresRetryStats = { serialization: 0, notPrimary: 0, connect: 0, lostConnection: 0 };
  private readonly pools: pg.Pool[];
  private readonly asideUntil: number[];
  /** Pooled connections already found to be on the writable primary. */
  private readonly primary = new WeakSet<pg.PoolClient>();
  private closed = false;

  static async open({
    url,
    connectionLimit = 8,
    connectTimeoutMs = 3_000,
    queryTimeoutMs = 5_000,
    migrationsDir,
    restoreHostMs = 5_000,
  }: PostgresOptions): Promise<PostgresExecutor> {
    const target = typeof url === 'string' ? parsePostgresUrl(url) : url;
    const configs = target.hosts.map((h) => poolConfig(target, h, connectTimeoutMs, queryTimeoutMs));
    await migrateOnPrimary(configs, migrationsDir).catch((error: unknown) => {
      throw error instanceof NotPrimary ? unavailable(error) : error;
    });
    return new PostgresExecutor(target, configs, connectionLimit, queryTimeoutMs, restoreHostMs);
  }

  private constructor(
    readonly target: PostgresTarget,
    readonly configs: PgConfig[],
    connectionLimit: number,
    private readonly queryTimeoutMs: number,
    private readonly restoreHostMs: number,
  ) {
    this.asideUntil = target.hosts.map(() => 0);
    this.pools = configs.map((config) => {
      const pool = new pg.Pool({ ...config, max: connectionLimit, idleTimeoutMillis: 60_000 });
      pool.on('error', () => {}); // an idle connection that died: the pool drops it; the next statement finds out
      return pool;
    });
  }

  async read<R>(query: Query): Promise<R[]> {
    return (await this.write<R>(query, true)).rows;
  }

  write<R>(query: Query, retryUnknown: boolean): Promise<ExecResult<R>> {
    const { sql: text, params } = compile(query);
    return this.attempt(retryUnknown, async (run) => answer<R>(await run(text, params, 'may-commit')));
  }

  async changedOne(query: Query, retryUnknown: boolean): Promise<boolean> {
    return (await this.write(query, retryUnknown)).affected === 1;
  }

  /** READ COMMITTED; run again after a failure before COMMIT, never after an unknown COMMIT. */
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
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.pools.map((p) => p.end()));
  }

  /** A connection that failed below the server's ERRORs is destroyed, never returned to its pool. */
  private attempt<T>(retryUnknown: boolean, work: (run: Run, rollback: () => Promise<void>) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(storeUnavailable(new Error('the store is closed')));
    return withRetries(
      async ({ exclude }) => {
        const { client, host } = await this.connection(exclude);
        let broken = false;
        let syncWaitCancelled = false;
        const onNotice = (notice: { message?: string; detail?: string }) => {
          if (isSyncWaitCancelled(notice)) syncWaitCancelled = true;
        };
        const onError = () => {
          broken = true;
        };
        client.on('notice', onNotice);
        client.on('error', onError);
        const run: Run = async (text, values, phase) => {
          syncWaitCancelled = false;
          try {
            const result = await this.bounded(client, text, values);
            // Success with that WARNING: committed on the primary alone, never acknowledged by the sync standby.
            if (syncWaitCancelled && phase === 'may-commit')
              throw new SyncCommitUnacknowledged(
                `${this.label(host)}: commit not acknowledged by the synchronous standby`,
              );
            return result;
          } catch (error) {
            if (serverError(error)?.severity !== 'ERROR') broken = true;
            throw new AttemptFault(phase, error, host);
          }
        };
        const rollback = async () => {
          if (broken) return; // the server rolls back a transaction whose connection is gone
          await this.bounded(client, 'ROLLBACK', []).catch(() => {
            broken = true;
          });
        };
        try {
          return await work(run, rollback);
        } finally {
          client.off('notice', onNotice);
          client.off('error', onError);
          client.release(broken ? true : undefined);
        }
      },
      {
        classify,
        attempts: ATTEMPTS,
        budgetMs: this.queryTimeoutMs,
        retryUnknown,
        onHostFault: (host) => this.setAside(host),
        onRetry: (failure, phase) => this.countRetry(failure, phase),
      },
      ({ cause }) => unavailable(cause),
    );
  }

  /** Bounded here: statement_timeout does not bound a commit's wait for a sync standby. */
  private async bounded(client: pg.PoolClient, text: string, values: unknown[]): Promise<PgResult> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const query = client.query({ text, values });
    query.catch(() => {}); // answered after the bound: the connection is destroyed, the late answer dropped
    try {
      const result = await Promise.race([
        query,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(Object.assign(new Error(`no answer within ${this.queryTimeoutMs} ms`), { code: 'TIMEOUT' })),
            this.queryTimeoutMs,
          );
        }),
      ]);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    } finally {
      clearTimeout(timer);
    }
  }

  /** From the first allowed host that is the writable primary; each host that is not is set aside. */
  private async connection(exclude: ReadonlySet<number>): Promise<{ client: pg.PoolClient; host: number }> {
    let last: unknown;
    let lastHost: number | undefined;
    for (const host of allowedHosts(this.asideUntil, exclude, performance.now())) {
      let client: pg.PoolClient | undefined;
      try {
        client = await this.pool(host).connect();
        if (!this.primary.has(client)) {
          await this.checkPrimary(client, host);
          this.primary.add(client);
        }
        return { client, host };
      } catch (error) {
        client?.release(true);
        last = error;
        lastHost = host;
        this.setAside(host);
      }
    }
    throw new AttemptFault('connect', last, lastHost);
  }

  /** target_session_attrs=read-write, on every new connection: a standby (or a read-only primary) is refused. */
  private async checkPrimary(client: pg.PoolClient, host: number): Promise<void> {
    const { rows } = await this.bounded(
      client,
      "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') AS read_only",
      [],
    );
    const row = rows[0] as { standby?: boolean; read_only?: string } | undefined;
    if (row?.standby !== false || row.read_only !== 'off') {
      throw new NotPrimary(
        `${this.label(host)} is ${row?.standby === false ? 'read-only' : 'a standby (in recovery)'}, not the writable primary`,
      );
    }
  }

  private pool(host: number): pg.Pool {
    const pool = this.pools[host];
    if (pool === undefined) throw new Error(`no pool for host ${host}`);
    return pool;
  }

  private label(host: number): string {
    const h = this.target.hosts[host];
    return h === undefined ? `host ${host}` : hostLabel(h);
  }

  private setAside(host: number): void {
    if (this.target.hosts.length > 1) this.asideUntil[host] = performance.now() + this.restoreHostMs;
  }

  private countRetry({ cause }: RetryFailure, phase: Phase): void {
    const code = serverError(cause)?.code;
    if (phase === 'connect') this.retries.connect++;
    else if (code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED) this.retries.serialization++;
    else if (code === READ_ONLY_SQL_TRANSACTION || cause instanceof NotPrimary) this.retries.notPrimary++;
    else this.retries.lostConnection++;
  }
}

/** store_unavailable, saying so when the reason is that no host is the writable primary (a standby in the URL). */
function unavailable(cause: unknown): LeafError {
  if (cause instanceof NotPrimary || serverError(cause)?.code === READ_ONLY_SQL_TRANSACTION) {
    return new LeafError(
      'store_unavailable',
      'The database is a read-only standby: leaf-ts writes only to the primary. Point DATABASE_URL at the primary (or list every host of the cluster).',
      { cause },
    );
  }
  return storeUnavailable(cause);
}
