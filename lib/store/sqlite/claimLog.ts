import { type SQL, sql } from 'drizzle-orm';
import type { ClaimLogStore } from '../../claims/claimLogStore';
import type { ClaimLogValues, Claimer } from '../../claims/claimNote';
import type { ClaimRow } from '../../claims/retirement';
import {
  DELETE_CHUNK,
  type RawClaimRow,
  type RawNumbering,
  claimRow,
  deleteRowsSql,
  holdingSql,
  insertCloseSql,
  numberingsSql,
  oldestOf,
  positionIn,
  retirersSql,
  rowsBeforeSql,
  rowsUpToSql,
  uniqueRows,
} from '../rows/claimLog';
import type { SqliteDb, SqliteExecutor } from './executor';

const text = (column: SQL): SQL => sql`CAST(${column} AS TEXT)`;

/**
 * SQLite's own reading of the clock, in whole ms: julianday carries it with a float's error (< 0.05 ms), so rounded
 * it is exactly the ms SQLite read, never later than the moment (the claim's start must not be).
 */
const CLAIM_NOW_MS = sql`CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`;

const INSERT_CLAIM = `INSERT INTO leaf_claim (biz_tag, first_id, last_id, claimed_at, kind, claimer, instance,
  serving_first, leased_max, tail_ms, region, regions)
  VALUES (?, ?, ?, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER), ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The claim's row, inside the claim's own immediate transaction: one prepared statement, run on every claim. */
export function insertClaimRow(exec: SqliteExecutor, { bizTag, first, last, note }: ClaimLogValues): void {
  exec
    .statement(INSERT_CLAIM)
    .run(
      bizTag,
      first,
      last,
      note.kind,
      note.claimer,
      note.instance,
      note.servingFirst,
      note.leasedMax,
      note.tailMs,
      note.region,
      note.regions,
    );
}

const rowsOf = (db: SqliteDb, query: SQL): ClaimRow[] => db.all<RawClaimRow>(query).map(claimRow);

/** leaf_claim on SQLite. */
export class SqliteClaimLog implements ClaimLogStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async rowsUpTo(bizTag: string, toMs: number): Promise<ClaimRow[]> {
    return this.exec.read((db) => rowsOf(db, rowsUpToSql(bizTag, toMs, text)));
  }

  async rowsHolding(bizTag: string, id: bigint): Promise<ClaimRow[]> {
    return this.exec.read((db) => {
      const holding = db.all<RawNumbering>(numberingsSql(bizTag, text)).flatMap((n) => {
        const position = positionIn(id, Number(n.region), Number(n.regions));
        return position === null
          ? []
          : rowsOf(db, holdingSql(bizTag, position, Number(n.region), Number(n.regions), text));
      });
      return uniqueRows([...holding, ...holding.flatMap((c) => retirersSql(c, text).flatMap((q) => rowsOf(db, q)))]);
    });
  }

  async rowsBefore(beforeMs: number): Promise<ClaimRow[]> {
    return this.exec.read((db) => rowsOf(db, rowsBeforeSql(beforeMs, text)));
  }

  async deleteRows(ids: readonly number[]): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
      const chunk = ids.slice(i, i + DELETE_CHUNK);
      deleted += this.exec.write((db) => db.run(deleteRowsSql(chunk)).changes);
    }
    return deleted;
  }

  async oldest(bizTag: string): Promise<number | null> {
    return oldestOf(this.exec.read((db) => db.all<RawNumbering>(numberingsSql(bizTag, text))));
  }

  async recordClose(claimer: Claimer): Promise<void> {
    this.exec.write((db) => db.run(insertCloseSql(claimer, CLAIM_NOW_MS)));
  }
}
