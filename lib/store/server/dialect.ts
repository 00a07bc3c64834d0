import type { SQL } from 'drizzle-orm';
import type { ClaimNote } from '../../claims/claimNote';
import type { Id } from '../../segment/id';
import type { Semantics } from '../../segment/semantics';
import type { Columns, TableName } from './query';
import type { ExecResult, Query } from '../serverExecutor';

/** What truly differs between server dialects (docs/design.md#adding-a-server-dialect). */
export interface ServerDialect {
  readonly name: 'mysql' | 'postgres';
  /** The database clock in ms since the Unix epoch: lease and heartbeat times are on it, so skewed nodes agree. */
  readonly nowMs: SQL;
  /** INSERT of `row` that writes nothing (0 rows) when its key exists. */
  insertIgnore(table: TableName, row: Columns): SQL;
  /** INSERT, or where `key` exists, the columns `update` gives from the current and the incoming values. */
  upsert(
    table: TableName,
    row: Columns,
    key: readonly string[],
    update: (current: (column: string) => SQL, incoming: (column: string) => SQL) => Columns,
  ): SQL;
  /** Serializes creates and deletes of one name where FOR UPDATE cannot; null where a gap lock does (InnoDB). */
  nameLock(kind: 'tag' | 'format', name: string): SQL | null;
  /** Locks every leaf_alloc row, and keeps new ones out, for a fleet semantics switch (the claims' lock order). */
  readonly lockAllTags: SQL;
  /** The segment claim: one statement, and its answer read back (undefined: no row changed). */
  claim(bizTag: string, added: number): Claim<{ maxId: Id; semantics: Semantics }>;
  /** The claim and its leaf_claim row in one transaction and one round trip (a stored routine). */
  claimLogged(bizTag: string, added: number, note: ClaimNote): Claim<{ maxId: Id; semantics: Semantics }>;
  /** A formatted tag's period claim of `step` numbers below `cap`: one statement, answering its first number. */
  claimPeriod(bizTag: string, periodKey: string, step: number, cap: number): Claim<number>;
}

export interface Claim<T> {
  query: Query;
  decode(result: ExecResult): T | undefined;
}
