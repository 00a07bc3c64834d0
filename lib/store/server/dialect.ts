import type { SQL } from 'drizzle-orm';
import type { Id } from '../../segment/id';
import type { Semantics } from '../../segment/semantics';
import type { Columns, TableName } from './query';
import type { ExecResult, Query } from '../serverExecutor';

/**
 * What truly differs between the server dialects, for the one set of server repositories (this folder). Adding a
 * dialect means one of these, its executor and its error classification (docs/design.md#adding-a-server-dialect).
 */
export interface ServerDialect {
  readonly name: 'mysql' | 'postgres';
  /** The database clock in ms since the Unix epoch: lease and heartbeat times are on it, so skewed nodes agree. */
  readonly nowMs: SQL;
  /** INSERT of `row` that writes nothing (0 rows) when its key exists. */
  insertIgnore(table: TableName, row: Columns): SQL;
  /**
   * INSERT of `row`, or where its `key` exists, the columns `update` gives from the row's current value of a column
   * (`current`) and the value this statement brought (`incoming`).
   */
  upsert(
    table: TableName,
    row: Columns,
    key: readonly string[],
    update: (current: (column: string) => SQL, incoming: (column: string) => SQL) => Columns,
  ): SQL;
  /**
   * Serializes the creates and deletes of one tag or format name inside a transaction, where FOR UPDATE locks no row
   * that is not there yet; null where FOR UPDATE's gap lock already does (InnoDB).
   */
  nameLock(kind: 'tag' | 'format', name: string): SQL | null;
  /** Locks every leaf_alloc row, and keeps new ones out, for a fleet semantics switch (the claims' lock order). */
  readonly lockAllTags: SQL;
  /** The segment claim: one statement, and its answer read back (undefined: no row changed). */
  claim(bizTag: string, added: number): Claim<{ maxId: Id; semantics: Semantics }>;
  /** A formatted tag's period claim of `step` numbers below `cap`: one statement, answering its first number. */
  claimPeriod(bizTag: string, periodKey: string, step: number, cap: number): Claim<number>;
}

export interface Claim<T> {
  query: Query;
  decode(result: ExecResult): T | undefined;
}
