import type { PoolOptions } from 'mysql2/promise';
import type { HostHealth } from '../leafStore';
import type { LeafStore } from '../leafStore';
import { MysqlAudit } from './audit';
import { MysqlExecutor, type MysqlRetryStats, poolOptions } from './executor';
import { MysqlFormats } from './formats';
import { probeHosts } from './hosts';
import { migrateOnFirstReachable } from './migrate';
import { MysqlNodes } from './nodes';
import { raw } from '../serverExecutor';
import { MysqlSemantics } from './semantics';
import { MysqlTags } from './tags';
import { MysqlTokens } from './tokens';
import { type MysqlTarget, parseMysqlUrl } from './url';
import { MysqlWorkers } from './workers';

export type { MysqlRetryStats };

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

/**
 * MySQL / MariaDB / Galera: one executor (executor.ts: a pool per host of the URL, failover, retries as errors.ts
 * reads the failures) and one repository per concern on it.
 */
export class MysqlStore implements LeafStore {
  readonly dialect = 'mysql' as const;
  readonly tags: MysqlTags;
  readonly semantics: MysqlSemantics;
  readonly workers: MysqlWorkers;
  readonly nodes: MysqlNodes;
  readonly formats: MysqlFormats;
  readonly tokens: MysqlTokens;
  readonly audit: MysqlAudit;
  private readonly exec: MysqlExecutor;

  private constructor(
    private readonly target: MysqlTarget,
    private readonly options: PoolOptions,
    queryTimeoutMs: number,
    restoreHostMs: number,
  ) {
    this.exec = new MysqlExecutor(target, options, queryTimeoutMs, restoreHostMs);
    this.tags = new MysqlTags(this.exec);
    this.semantics = new MysqlSemantics(this.exec);
    this.workers = new MysqlWorkers(this.exec);
    this.nodes = new MysqlNodes(this.exec);
    this.formats = new MysqlFormats(this.exec);
    this.tokens = new MysqlTokens(this.exec);
    this.audit = new MysqlAudit(this.exec);
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
    const options = poolOptions(target, connectionLimit, connectTimeoutMs);
    await migrateOnFirstReachable(target.hosts, options, migrationsDir);
    return new MysqlStore(target, options, queryTimeoutMs, restoreHostMs);
  }

  /** Failures retried since the store opened, by kind. */
  get retries(): MysqlRetryStats {
    return this.exec.retries;
  }

  async ping(): Promise<void> {
    await this.exec.read(raw('SELECT 1'));
  }

  /** Every host of the URL on its own (hosts.ts), for /api/health. */
  hosts(timeoutMs = 1_000): Promise<HostHealth[]> {
    return probeHosts(this.target.hosts, this.options, timeoutMs);
  }

  close(): Promise<void> {
    return this.exec.close();
  }
}
