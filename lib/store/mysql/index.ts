import type { HostHealth, LeafStore } from '../leafStore';
import { raw } from '../serverExecutor';
import { MysqlAudit } from './audit';
import { MysqlExecutor, type MysqlOptions, type MysqlRetryStats } from './executor';
import { MysqlFormats } from './formats';
import { probeHosts } from './hosts';
import { MysqlNodes } from './nodes';
import { MysqlSemantics } from './semantics';
import { MysqlTags } from './tags';
import { MysqlTokens } from './tokens';
import { MysqlWorkers } from './workers';

export type { MysqlRetryStats };

/** MysqlStore.open's options (the executor's). */
export type MysqlStoreOptions = MysqlOptions;

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

  private constructor(private readonly exec: MysqlExecutor) {
    this.tags = new MysqlTags(this.exec);
    this.semantics = new MysqlSemantics(this.exec);
    this.workers = new MysqlWorkers(this.exec);
    this.nodes = new MysqlNodes(this.exec);
    this.formats = new MysqlFormats(this.exec);
    this.tokens = new MysqlTokens(this.exec);
    this.audit = new MysqlAudit(this.exec);
  }

  /** Opens one pool per host and applies migrations on the first reachable host (under a lock, so nodes may start together). */
  static async open(options: MysqlStoreOptions): Promise<MysqlStore> {
    return new MysqlStore(await MysqlExecutor.open(options));
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
    return probeHosts(this.exec.target.hosts, this.exec.options, timeoutMs);
  }

  close(): Promise<void> {
    return this.exec.close();
  }
}
