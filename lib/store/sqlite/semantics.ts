import { and, eq, inArray, lte, notInArray, sql } from 'drizzle-orm';
import type { AuditStamp } from '../../audit';
import { MAX_ID } from '../../segment/id';
import { FLEET_DEFAULT_KEY, type Semantics, storedSemantics } from '../../segment/semantics';
import type { SemanticsSettings, SemanticsStore, SemanticsSwitch } from '../../segment/semanticsStore';
import { leafAlloc, leafAllocTombstone, leafSemantics } from '../schema/sqlite';
import {
  type StoredSemantics,
  effectiveSemantics as effective,
  existingTag,
  fleetSwitchAudit,
  planDefaultSwitch,
  planTagSwitch,
  settingsFromRows,
  tagSwitchAudit,
} from '../tagRules';
import type { SqliteDb, SqliteExecutor } from './executor';
import { insertAudit } from './sql';
import { readTagRow } from './tagRows';
import type { TagRow } from '../../segment/tagStore';

/** leaf_semantics on SQLite: a switch and a claim are immediate transactions, so they never interleave. */
export class SqliteSemantics implements SemanticsStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async getSemantics(): Promise<SemanticsSettings> {
    return this.exec.read((db) => settingsFromRows(db.select().from(leafSemantics).all()));
  }

  async tagSemantics(bizTag: string): Promise<Semantics> {
    return this.exec.read((db) => effectiveSemantics(db, bizTag));
  }

  async setDefaultSemantics(semantics: Semantics, audit?: AuditStamp): Promise<SemanticsSwitch> {
    return this.exec.transaction((db) => {
      const plan = planDefaultSwitch(readSemanticsRows(db).fleet, semantics);
      if (!plan.changes) return { before: plan.before, after: plan.after, bumped: 0 };
      const bumped = plan.bump === 1 ? bumpDefaultFollowers(db) : 0;
      writeSemanticsRow(db, FLEET_DEFAULT_KEY, semantics);
      if (audit !== undefined) insertAudit(db, fleetSwitchAudit(audit, plan, bumped));
      return { before: plan.before, after: plan.after, bumped };
    });
  }

  async setTagSemantics(bizTag: string, semantics: Semantics | null, audit?: AuditStamp): Promise<SemanticsSwitch> {
    return this.exec.transaction((db) => {
      const row = existingTag(bizTag, readTagRow(db, bizTag));
      const plan = planTagSwitch(readSemanticsRows(db, bizTag), semantics);
      const bumped = plan.bump === 1 ? bumpTag(db, bizTag) : 0;
      if (plan.writesRow) writeSemanticsRow(db, bizTag, semantics);
      if (audit !== undefined && plan.writesRow)
        insertAudit(db, tagSwitchAudit(audit, plan, row, readTagRow(db, bizTag) as TagRow, bumped));
      return { before: plan.before, after: plan.after, bumped };
    });
  }
}

/** The tag's effective semantics, read inside the claim's transaction. */
export function effectiveSemantics(db: SqliteDb, bizTag: string): Semantics {
  return effective(readSemanticsRows(db, bizTag));
}

/** The fleet default and the tag's own row, as stored (undefined: no row). */
function readSemanticsRows(db: SqliteDb, bizTag?: string): StoredSemantics {
  const keys = bizTag === undefined ? [FLEET_DEFAULT_KEY] : [FLEET_DEFAULT_KEY, bizTag];
  const rows = db.select().from(leafSemantics).where(inArray(leafSemantics.bizTag, keys)).all();
  const of = (key: string) => storedSemantics(rows.find((r) => r.bizTag === key)?.semantics);
  return { fleet: of(FLEET_DEFAULT_KEY), own: bizTag === undefined ? undefined : of(bizTag) };
}

/** Writes (or with null removes) one leaf_semantics row. */
function writeSemanticsRow(db: SqliteDb, key: string, semantics: Semantics | null): void {
  if (semantics === null) {
    db.delete(leafSemantics).where(eq(leafSemantics.bizTag, key)).run();
    return;
  }
  db.insert(leafSemantics)
    .values({ bizTag: key, semantics })
    .onConflictDoUpdate({ target: leafSemantics.bizTag, set: { semantics } })
    .run();
}

/** The highest max_id a switch may still raise by one (bound as a bigint: exact). */
const bumpable = () => sql`${MAX_ID - 1n}`;

/** max_id + 1 for one tag (row and tombstone); how many leaf_alloc rows moved. */
function bumpTag(db: SqliteDb, bizTag: string): number {
  db.update(leafAllocTombstone)
    .set({ maxId: sql`${leafAllocTombstone.maxId} + 1` })
    .where(and(eq(leafAllocTombstone.bizTag, bizTag), lte(leafAllocTombstone.maxId, bumpable())))
    .run();
  return db
    .update(leafAlloc)
    .set({ maxId: sql`${leafAlloc.maxId} + 1` })
    .where(and(eq(leafAlloc.bizTag, bizTag), lte(leafAlloc.maxId, bumpable())))
    .run().changes;
}

/** max_id + 1 for every tag (row and tombstone) that follows the fleet default; how many leaf_alloc rows moved. */
function bumpDefaultFollowers(db: SqliteDb): number {
  const own = db.select({ bizTag: leafSemantics.bizTag }).from(leafSemantics);
  db.update(leafAllocTombstone)
    .set({ maxId: sql`${leafAllocTombstone.maxId} + 1` })
    .where(and(notInArray(leafAllocTombstone.bizTag, own), lte(leafAllocTombstone.maxId, bumpable())))
    .run();
  return db
    .update(leafAlloc)
    .set({ maxId: sql`${leafAlloc.maxId} + 1` })
    .where(and(notInArray(leafAlloc.bizTag, own), lte(leafAlloc.maxId, bumpable())))
    .run().changes;
}
