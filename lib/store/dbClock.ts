import { sql } from 'drizzle-orm';

/** The database clock in ms since the Unix epoch: lease and heartbeat times are on it, so skewed nodes agree. As text, for a query written out by hand. */
export const MYSQL_NOW_SQL = 'CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)';
export const MYSQL_NOW_MS = sql.raw(MYSQL_NOW_SQL);
