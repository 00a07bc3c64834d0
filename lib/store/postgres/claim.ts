import { type Id, MAX_ID } from '../../segment/id';
import { DEFAULT_SEMANTICS, FLEET_DEFAULT_KEY, type Semantics, storedSemantics } from '../../segment/semantics';
import { exactId } from '../exactId';
import { type Statement, raw } from '../serverExecutor';

/**
 * The segment claim on PostgreSQL: one autocommit statement, `leaf_ts_claim(…)` (drizzle/postgres/0001), one round
 * trip. Inside it two statements: the UPDATE … RETURNING takes the tag's row (max_id + `added`, kept within
 * 0..2^63−1 by its WHERE) and answers the new max_id; then, holding that row's lock, a statement of its own reads the
 * tag's semantics. Not one statement: a subquery of the UPDATE (or of a CTE around it) reads the statement's starting
 * snapshot, so a claim that waited on the row lock of a semantics switch would get the switch's bumped max_id but
 * the OLD semantics — a wrong owned range, duplicate IDs. The function is VOLATILE, so under READ COMMITTED its
 * second statement takes a fresh snapshot, which holds every switch that committed before the row lock was ours; a
 * switch after it waits for our commit (it locks the leaf_alloc rows first, then leaf_semantics: semantics.ts).
 * test/integration/postgresStore.test.ts holds a switch open and shows both the claim and the one-statement trap.
 */
export function claimStatement(bizTag: string, added: number): Statement {
  return raw('SELECT claimed_max_id, claimed_semantics FROM leaf_ts_claim($1, $2, $3, $4, $5)', [
    bizTag,
    added,
    MAX_ID - BigInt(added),
    FLEET_DEFAULT_KEY,
    DEFAULT_SEMANTICS,
  ]);
}

export interface ClaimRow {
  claimed_max_id: string;
  claimed_semantics: string | null;
}

/** The claim's answer: no row when the tag is missing or its max_id would leave 0..2^63−1 (the caller names which). */
export function decodeClaim(rows: ClaimRow[], bizTag: string): { maxId: Id; semantics: Semantics } | undefined {
  const row = rows[0];
  return row === undefined
    ? undefined
    : {
        maxId: exactId(row.claimed_max_id, bizTag),
        semantics: storedSemantics(row.claimed_semantics) ?? DEFAULT_SEMANTICS,
      };
}
