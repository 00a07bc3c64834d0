/** What a server's executor offers the repositories: answers as `{ rows, affected }` (docs/design.md#executors-hosts-and-retries). */
import type { SQL } from 'drizzle-orm';

/** A statement written out by hand in the dialect's own placeholders (migrations, probes, the claims). */
export interface Statement {
  toSQL(): { sql: string; params: unknown[] };
}

export function raw(text: string, params: unknown[] = []): Statement {
  return { toSQL: () => ({ sql: text, params }) };
}

/** Dialect-neutral SQL (compiled by the executor), or a statement in the dialect's own words. */
export type Query = SQL | Statement;

/** Any statement's answer: the rows it returned (keyed by column name), and how many rows it changed. */
export interface ExecResult<R = Record<string, unknown>> {
  rows: R[];
  affected: number;
  /** MySQL's OK packet: LAST_INSERT_ID, which the claims use to answer in one round trip. */
  insertId?: number | string;
}

/** A statement inside a transaction (it cannot commit by itself). */
export type Tx = <R = Record<string, unknown>>(query: Query) => Promise<ExecResult<R>>;

export interface ServerExecutor {
  /** A read: retried whatever happened, since running it twice changes nothing. */
  read<R = Record<string, unknown>>(query: Query): Promise<R[]>;
  /** Autocommit; `retryUnknown`: may it run again after an unknown outcome (no default). */
  write<R = Record<string, unknown>>(query: Query, retryUnknown: boolean): Promise<ExecResult<R>>;
  /** A conditional write (a claim): true when it changed exactly one row. */
  changedOne(query: Query, retryUnknown: boolean): Promise<boolean>;
  /** Run again after a failure before COMMIT (`fn` re-runnable); never after an unknown COMMIT. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
