/**
 * What a database server's executor offers its repositories — MySQL's (mysql/executor.ts) and PostgreSQL's
 * (postgres/executor.ts): statements on their own or in a transaction, each run with the dialect's timeout, host choice and retry
 * rules (retry.ts with the dialect's own reading of its driver's errors). The repositories build statements with
 * their dialect's drizzle, compile only, and hand them here.
 */

/** A statement: drizzle's query (compiled by the dialect's drizzle.mock), or text and values written by hand. */
export interface Statement {
  toSQL(): { sql: string; params: unknown[] };
}

/** A statement written out by hand, in the dialect's own placeholders. */
export function raw(text: string, params: unknown[] = []): Statement {
  return { toSQL: () => ({ sql: text, params }) };
}

/** A statement inside a transaction (it cannot commit by itself). */
export type Tx = <R = unknown>(statement: Statement) => Promise<R>;

export interface ServerExecutor {
  /** A read: retried whatever happened, since running it twice changes nothing. */
  read<T>(statement: Statement): Promise<T>;
  /**
   * A write on its own (autocommit). `retryUnknown`: whether it may run again after an unknown outcome (the
   * connection died after it was sent) — only where doing it twice is harmless; there is no default.
   */
  write<T>(statement: Statement, retryUnknown: boolean): Promise<T>;
  /** A conditional write (a claim): true when it changed exactly one row. */
  changedOne(statement: Statement, retryUnknown: boolean): Promise<boolean>;
  /**
   * BEGIN … COMMIT around `fn`; any throw rolls back. Run again from the start after a failure before COMMIT was
   * sent (`fn` must be re-runnable); never after an unknown outcome of the COMMIT: the caller gets store_unavailable.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
