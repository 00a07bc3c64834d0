/** The store a worker process opens: MySQL/MariaDB or PostgreSQL at `url`, else the SQLite file at `file`. */
import { MysqlStore } from '../../../lib/store/mysql';
import { PostgresStore } from '../../../lib/store/postgres';
import { SqliteStore } from '../../../lib/store/sqlite';
import type { LeafStore } from '../../../lib/store/leafStore';

export type WorkerDialect = 'mysql' | 'postgres' | 'sqlite';

export async function openWorkerStore(
  dialect: WorkerDialect,
  where: { url?: unknown; file?: unknown },
  connectionLimit?: number,
): Promise<LeafStore> {
  if (dialect === 'mysql') return MysqlStore.open({ url: where.url as string, connectionLimit });
  if (dialect === 'postgres') return PostgresStore.open({ url: where.url as string, connectionLimit });
  return new SqliteStore({ file: where.file as string });
}
