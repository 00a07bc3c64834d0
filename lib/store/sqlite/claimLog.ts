import { type SQL, sql } from 'drizzle-orm';
import type { ClaimLogStore, LoggedClaim } from '../../claims/claimLogStore';
import type { ClaimLogValues, Claimer } from '../../claims/claimNote';
import {
  type RawClaimRow,
  type RawNumbering,
  containingSql,
  insertClaimSql,
  insertCloseSql,
  liveBetweenSql,
  loggedClaim,
  numberingsSql,
  oldestOf,
  positionIn,
  pruneClaimsSql,
  pruneClosesSql,
} from '../rows/claimLog';
import type { SqliteDb, SqliteExecutor } from './executor';

const text = (column: SQL): SQL => sql`CAST(${column} AS TEXT)`;

/**
 * SQLite's own reading of the clock, in whole ms: julianday carries it with a float's error (< 0.05 ms), so rounded
 * it is exactly the ms SQLite read, never later than the moment (the claim's start must not be).
 */
const CLAIM_NOW_MS = sql`CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`;

/** The claim's row, inside the claim's own immediate transaction. */
export function insertClaimRow(db: SqliteDb, values: ClaimLogValues): void {
  db.run(insertClaimSql(values, CLAIM_NOW_MS));
}

/** leaf_claim on SQLite. */
export class SqliteClaimLog implements ClaimLogStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async liveBetween(bizTag: string, fromMs: number, toMs: number): Promise<LoggedClaim[]> {
    return this.exec.read((db) => db.all<RawClaimRow>(liveBetweenSql(bizTag, fromMs, toMs, text)).map(loggedClaim));
  }

  async containing(bizTag: string, id: bigint): Promise<LoggedClaim[]> {
    return this.exec.read((db) =>
      db.all<RawNumbering>(numberingsSql(bizTag, text)).flatMap((n) => {
        const position = positionIn(id, Number(n.region), Number(n.regions));
        if (position === null) return [];
        return db
          .all<RawClaimRow>(containingSql(bizTag, position, Number(n.region), Number(n.regions), text))
          .map(loggedClaim);
      }),
    );
  }

  async oldest(bizTag: string): Promise<number | null> {
    const rows = this.exec.read((db) => db.all<RawNumbering>(numberingsSql(bizTag, text)));
    return oldestOf(rows);
  }

  async recordClose(claimer: Claimer): Promise<void> {
    this.exec.write((db) => db.run(insertCloseSql(claimer, CLAIM_NOW_MS)));
  }

  async prune(beforeMs: number): Promise<number> {
    return this.exec.transaction(
      (db) => db.run(pruneClaimsSql(beforeMs)).changes + db.run(pruneClosesSql(beforeMs)).changes,
    );
  }
}
