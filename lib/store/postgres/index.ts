import { ServerStore } from '../server/store';
import { postgresDialect } from './dialect';
import { PostgresExecutor, type PostgresOptions, type PostgresRetryStats } from './executor';
import { probeHosts } from './hosts';

export type { PostgresRetryStats };

/** PostgresStore.open's options (the executor's). */
export type PostgresStoreOptions = PostgresOptions;

/** PostgreSQL: the server repositories on PostgreSQL's executor (writes only through the primary) and dialect. */
export class PostgresStore extends ServerStore {
  override readonly dialect = 'postgres' as const;

  private constructor(private readonly pg: PostgresExecutor) {
    super(pg, postgresDialect, (timeoutMs) => probeHosts(pg.configs, timeoutMs));
  }

  /** Opens one pool per host and applies migrations on the primary (under an advisory lock, so nodes may start together). */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    return new PostgresStore(await PostgresExecutor.open(options));
  }

  /** Failures retried since the store opened, by kind. */
  get retries(): PostgresRetryStats {
    return this.pg.retries;
  }
}
