import { type SQL, sql } from 'drizzle-orm';
import type { ClaimLogValues } from '../../claims/claimNote';
import { SqlClaimLog } from '../rows/claimLog';
import type { SqliteExecutor } from './executor';

/**
 * SQLite's own reading of the clock, in whole ms: julianday carries it with a float's error (< 0.05 ms), so rounded
 * it is exactly the ms SQLite read, never later than the moment (the claim's start must not be).
 */
const NOW_MS = "CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)";

const INSERT_CLAIM = `INSERT INTO leaf_claim (biz_tag, first_id, last_id, claimed_at, kind, claimer, instance,
  serving_first, leased_max, tail_ms, region, regions)
  VALUES (?, ?, ?, ${NOW_MS}, ?, ?, ?, ?, ?, ?, ?, ?)`;

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

/** leaf_claim on SQLite. */
export class SqliteClaimLog extends SqlClaimLog {
  constructor(exec: SqliteExecutor) {
    super({
      all: async (query) => exec.read((db) => db.all(query)),
      run: async (query) => exec.write((db) => db.run(query).changes),
      text: (column: SQL) => sql`CAST(${column} AS TEXT)`,
      nowMs: sql.raw(NOW_MS),
    });
  }
}
