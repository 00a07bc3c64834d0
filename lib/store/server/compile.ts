import { SQL } from 'drizzle-orm';
import type { Query } from '../serverExecutor';

/** What compiles drizzle's dialect-neutral SQL: MySqlDialect and PgDialect alike. */
interface SqlCompiler {
  sqlToQuery(sql: SQL): { sql: string; params: unknown[] };
}

/** An executor's compiler: neutral SQL in its dialect's words; a hand-written statement as it is. */
export function compileFor(dialect: SqlCompiler): (query: Query) => { sql: string; params: unknown[] } {
  return (query) => (query instanceof SQL ? dialect.sqlToQuery(query) : query.toSQL());
}
