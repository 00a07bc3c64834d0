import { ServerStore } from '../server/store';
import { mysqlDialect } from './dialect';
import { MysqlExecutor, type MysqlOptions, type MysqlRetryStats } from './executor';
import { probeHosts } from './hosts';

export type { MysqlRetryStats };

/** MysqlStore.open's options (the executor's). */
export type MysqlStoreOptions = MysqlOptions;

/** MySQL / MariaDB / Galera: the server repositories on MySQL's executor and dialect. */
export class MysqlStore extends ServerStore {
  override readonly dialect = 'mysql' as const;

  private constructor(private readonly mysql: MysqlExecutor) {
    super(mysql, mysqlDialect, (timeoutMs) => probeHosts(mysql.target.hosts, mysql.options, timeoutMs));
  }

  /** Opens one pool per host and applies migrations on the first reachable host (under a lock, so nodes may start together). */
  static async open(options: MysqlStoreOptions): Promise<MysqlStore> {
    return new MysqlStore(await MysqlExecutor.open(options));
  }

  /** Failures retried since the store opened, by kind. */
  get retries(): MysqlRetryStats {
    return this.mysql.retries;
  }
}
