import type { TagRow } from '../../segment/tagStore';
import type { AuditStamp } from '../../audit';
import { MAX_ID } from '../../segment/id';
import { FLEET_DEFAULT_KEY, type Semantics, storedSemantics } from '../../segment/semantics';
import type { SemanticsSettings, SemanticsStore, SemanticsSwitch } from '../../segment/semanticsStore';
import {
  type StoredSemantics,
  effectiveSemantics,
  existingTag,
  fleetSwitchAudit,
  planDefaultSwitch,
  planTagSwitch,
  semanticsSettings,
  tagSwitchAudit,
} from '../tagRules';
import { type ServerExecutor, type Tx, raw } from '../serverExecutor';
import type { PgResult } from './executor';
import { insertAudit } from './sql';
import { lockTagRow } from './tagRows';

interface SemanticsRow {
  biz_tag: string;
  semantics: string;
}

/**
 * leaf_semantics on PostgreSQL: a switch is one transaction (tagRules.ts plans it) that locks leaf_alloc first, then
 * the leaf_semantics rows — the claim's own order (claim.ts: the claim reads the semantics in a statement after its
 * UPDATE, so it sees every switch that committed before it had the row). A fleet switch locks the whole table (SHARE
 * ROW EXCLUSIVE: no claim, create or delete runs meanwhile): row locks cover only the rows that exist, and a tag
 * created and claimed while the switch runs would follow the new default without its bump. Not run again after an
 * unknown outcome (the audit row).
 */
export class PostgresSemantics implements SemanticsStore {
  constructor(private readonly exec: ServerExecutor) {}

  async getSemantics(): Promise<SemanticsSettings> {
    const rows = await this.exec.read<SemanticsRow[]>(raw('SELECT biz_tag, semantics FROM leaf_semantics'));
    return semanticsSettings(rows.map((r) => ({ bizTag: r.biz_tag, semantics: r.semantics })));
  }

  /** A tag's effective semantics: its own row, else the fleet default, else leaf-ts. */
  async tagSemantics(bizTag: string): Promise<Semantics> {
    const rows = await this.exec.read<SemanticsRow[]>(
      raw('SELECT biz_tag, semantics FROM leaf_semantics WHERE biz_tag IN ($1, $2)', [bizTag, FLEET_DEFAULT_KEY]),
    );
    return effectiveSemantics({ fleet: pick(rows, FLEET_DEFAULT_KEY), own: pick(rows, bizTag) });
  }

  async setDefaultSemantics(semantics: Semantics, audit?: AuditStamp): Promise<SemanticsSwitch> {
    // Already so (every node start with LEAF_SEGMENT_SEMANTICS asks): no need to lock the table to find out.
    const current = planDefaultSwitch((await this.getSemantics()).default, semantics);
    if (!current.changes) return { before: current.before, after: current.after, bumped: 0 };
    return this.exec.transaction(async (tx) => {
      await tx(raw('LOCK TABLE leaf_alloc IN SHARE ROW EXCLUSIVE MODE')); // every row first, and none added: the claims' order
      const plan = planDefaultSwitch((await lockSemanticsRows(tx)).fleet, semantics);
      if (!plan.changes) return { before: plan.before, after: plan.after, bumped: 0 };
      const bumped = await bumpDefaultFollowers(tx, plan.bump);
      await writeSemanticsRow(tx, FLEET_DEFAULT_KEY, semantics);
      if (audit !== undefined) await insertAudit(tx, fleetSwitchAudit(audit, plan, bumped));
      return { before: plan.before, after: plan.after, bumped };
    });
  }

  setTagSemantics(bizTag: string, semantics: Semantics | null, audit?: AuditStamp): Promise<SemanticsSwitch> {
    return this.exec.transaction(async (tx) => {
      const row = existingTag(bizTag, await lockTagRow(tx, bizTag));
      const plan = planTagSwitch(await lockSemanticsRows(tx, bizTag), semantics);
      await bumpTag(tx, bizTag, plan.bump);
      if (plan.writesRow) await writeSemanticsRow(tx, bizTag, semantics);
      if (audit !== undefined && plan.writesRow)
        await insertAudit(tx, tagSwitchAudit(audit, plan, row, (await lockTagRow(tx, bizTag)) as TagRow, plan.bump));
      return { before: plan.before, after: plan.after, bumped: plan.bump };
    });
  }
}

/** The switch's read: the fleet default and the tag's own row, locked so two switches take turns. */
async function lockSemanticsRows(tx: Tx, bizTag?: string): Promise<StoredSemantics> {
  const keys = bizTag === undefined ? [FLEET_DEFAULT_KEY] : [FLEET_DEFAULT_KEY, bizTag];
  const { rows } = await tx<PgResult<SemanticsRow>>(
    raw('SELECT biz_tag, semantics FROM leaf_semantics WHERE biz_tag = ANY($1) FOR UPDATE', [keys]),
  );
  return { fleet: pick(rows, FLEET_DEFAULT_KEY), own: bizTag === undefined ? undefined : pick(rows, bizTag) };
}

async function writeSemanticsRow(tx: Tx, key: string, semantics: Semantics | null): Promise<void> {
  if (semantics === null) await tx(raw('DELETE FROM leaf_semantics WHERE biz_tag = $1', [key]));
  else
    await tx(
      raw(
        'INSERT INTO leaf_semantics (biz_tag, semantics) VALUES ($1, $2) ON CONFLICT (biz_tag) DO UPDATE SET semantics = EXCLUDED.semantics',
        [key, semantics],
      ),
    );
}

/**
 * The tag's row and tombstone: max_id + `by` (0 still writes the row, so a claim in flight and this switch take
 * turns on its lock).
 */
async function bumpTag(tx: Tx, bizTag: string, by: 0 | 1): Promise<void> {
  const limit = MAX_ID - BigInt(by);
  await tx(
    raw('UPDATE leaf_alloc_tombstone SET max_id = max_id + $1 WHERE biz_tag = $2 AND max_id <= $3', [
      by,
      bizTag,
      limit,
    ]),
  );
  await tx(
    raw(
      'UPDATE leaf_alloc SET max_id = max_id + $1, update_time = CURRENT_TIMESTAMP WHERE biz_tag = $2 AND max_id <= $3',
      [by, bizTag, limit],
    ),
  );
}

/** Every row and tombstone that follows the fleet default (no row of its own): max_id + `by`; rows that grew. */
async function bumpDefaultFollowers(tx: Tx, by: 0 | 1): Promise<number> {
  const followers = 'NOT EXISTS (SELECT 1 FROM leaf_semantics s WHERE s.biz_tag = t.biz_tag) AND t.max_id <= $2';
  await tx(
    raw(`UPDATE leaf_alloc_tombstone t SET max_id = t.max_id + $1 WHERE ${followers}`, [by, MAX_ID - BigInt(by)]),
  );
  const changed = await tx<PgResult>(
    raw(`UPDATE leaf_alloc t SET max_id = t.max_id + $1, update_time = CURRENT_TIMESTAMP WHERE ${followers}`, [
      by,
      MAX_ID - BigInt(by),
    ]),
  );
  return by === 1 ? changed.rowCount : 0;
}

function pick(rows: SemanticsRow[], key: string): Semantics | undefined {
  return storedSemantics(rows.find((r) => r.biz_tag === key)?.semantics);
}
