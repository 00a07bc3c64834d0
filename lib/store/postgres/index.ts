import type { HostHealth, LeafStore } from '../leafStore';
import { raw } from '../serverExecutor';
import { PostgresAudit } from './audit';
import { PostgresExecutor, type PostgresOptions, type PostgresRetryStats } from './executor';
import { PostgresFormats } from './formats';
import { probeHosts } from './hosts';
import { PostgresNodes } from './nodes';
import { PostgresSemantics } from './semantics';
import { PostgresTags } from './tags';
import { PostgresTokens } from './tokens';
import { PostgresWorkers } from './workers';

export type { PostgresRetryStats };

/** PostgresStore.open's options (the executor's). */
export type PostgresStoreOptions = PostgresOptions;

/**
 * PostgreSQL: one executor (executor.ts: a pool per host of the URL, writes only through the primary, retries as
 * errors.ts reads the failures) and one repository per concern on it.
 */
export class PostgresStore implements LeafStore {
  readonly dialect = 'postgres' as const;
  readonly tags: PostgresTags;
  readonly semantics: PostgresSemantics;
  readonly workers: PostgresWorkers;
  readonly nodes: PostgresNodes;
  readonly formats: PostgresFormats;
  readonly tokens: PostgresTokens;
  readonly audit: PostgresAudit;

  private constructor(private readonly exec: PostgresExecutor) {
    this.tags = new PostgresTags(this.exec);
    this.semantics = new PostgresSemantics(this.exec);
    this.workers = new PostgresWorkers(this.exec);
    this.nodes = new PostgresNodes(this.exec);
    this.formats = new PostgresFormats(this.exec);
    this.tokens = new PostgresTokens(this.exec);
    this.audit = new PostgresAudit(this.exec);
  }

  /** Opens one pool per host and applies migrations on the primary (under an advisory lock, so nodes may start together). */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    return new PostgresStore(await PostgresExecutor.open(options));
  }

  /** Failures retried since the store opened, by kind. */
  get retries(): PostgresRetryStats {
    return this.exec.retries;
  }

  async ping(): Promise<void> {
    await this.exec.read(raw('SELECT 1'));
  }

  /** Every host of the URL on its own (hosts.ts), for /api/health. */
  hosts(timeoutMs = 1_000): Promise<HostHealth[]> {
    return probeHosts(this.exec.configs, timeoutMs);
  }

  close(): Promise<void> {
    return this.exec.close();
  }
}
