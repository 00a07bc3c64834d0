import { sql } from 'drizzle-orm';
import type { AuditStamp } from '../../audit';
import { MAX_ID } from '../../segment/id';
import { FLEET_DEFAULT_KEY, type Semantics, storedSemantics } from '../../segment/semantics';
import type { SemanticsSettings, SemanticsStore, SemanticsSwitch } from '../../segment/semanticsStore';
import type { TagRow } from '../../segment/tagStore';
import type { ServerExecutor, Tx } from '../serverExecutor';
import {
  type StoredSemantics,
  effectiveSemantics,
  existingTag,
  fleetSwitchAudit,
  planDefaultSwitch,
  planTagSwitch,
  settingsFromRows,
  tagSwitchAudit,
} from '../tagRules';
import { insertAudit } from './audit';
import type { ServerDialect } from './dialect';
import { TABLE, list } from './query';
import { lockTagRow } from './tags';

interface SemanticsRow {
  biz_tag: string;
  semantics: string;
}

/** A switch locks leaf_alloc rows first, then leaf_semantics, the claims' order (docs/design.md#claim-semantics-running-beside-java-leaf). */
export class ServerSemantics implements SemanticsStore {
  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {}

  async getSemantics(): Promise<SemanticsSettings> {
    const rows = await this.exec.read<SemanticsRow>(sql`SELECT biz_tag, semantics FROM ${TABLE.semantics}`);
    return settingsFromRows(rows.map((r) => ({ bizTag: r.biz_tag, semantics: r.semantics })));
  }

  /** A tag's effective semantics: its own row, else the fleet default, else leaf-ts. */
  async tagSemantics(bizTag: string): Promise<Semantics> {
    const rows = await this.exec.read<SemanticsRow>(
      sql`SELECT biz_tag, semantics FROM ${TABLE.semantics} WHERE biz_tag IN ${list([bizTag, FLEET_DEFAULT_KEY])}`,
    );
    return effectiveSemantics({ fleet: pick(rows, FLEET_DEFAULT_KEY), own: pick(rows, bizTag) });
  }

  async setDefaultSemantics(semantics: Semantics, audit?: AuditStamp): Promise<SemanticsSwitch> {
    // Already so (every node start with LEAF_SEGMENT_SEMANTICS asks): no need to lock every row to find out.
    const current = planDefaultSwitch((await this.getSemantics()).default, semantics);
    if (!current.changes) return { before: current.before, after: current.after, bumped: 0 };
    return this.exec.transaction(async (tx) => {
      await tx(this.dialect.lockAllTags);
      const plan = planDefaultSwitch((await lockSemanticsRows(tx)).fleet, semantics);
      if (!plan.changes) return { before: plan.before, after: plan.after, bumped: 0 };
      const bumped = await bumpDefaultFollowers(tx, plan.bump);
      await this.writeSemanticsRow(tx, FLEET_DEFAULT_KEY, semantics);
      if (audit !== undefined) await insertAudit(tx, fleetSwitchAudit(audit, plan, bumped));
      return { before: plan.before, after: plan.after, bumped };
    });
  }

  setTagSemantics(bizTag: string, semantics: Semantics | null, audit?: AuditStamp): Promise<SemanticsSwitch> {
    return this.exec.transaction(async (tx) => {
      const row = existingTag(bizTag, await lockTagRow(tx, bizTag));
      const plan = planTagSwitch(await lockSemanticsRows(tx, bizTag), semantics);
      await bumpTag(tx, bizTag, plan.bump);
      if (plan.writesRow) await this.writeSemanticsRow(tx, bizTag, semantics);
      if (audit !== undefined && plan.writesRow)
        await insertAudit(tx, tagSwitchAudit(audit, plan, row, (await lockTagRow(tx, bizTag)) as TagRow, plan.bump));
      return { before: plan.before, after: plan.after, bumped: plan.bump };
    });
  }

  private async writeSemanticsRow(tx: Tx, key: string, semantics: Semantics | null): Promise<void> {
    if (semantics === null) await tx(sql`DELETE FROM ${TABLE.semantics} WHERE biz_tag = ${key}`);
    else
      await tx(
        this.dialect.upsert(TABLE.semantics, { biz_tag: key, semantics }, ['biz_tag'], (_, incoming) => ({
          semantics: incoming('semantics'),
        })),
      );
  }
}

/** The switch's read: the fleet default and the tag's own row, locked so two switches take turns. */
async function lockSemanticsRows(tx: Tx, bizTag?: string): Promise<StoredSemantics> {
  const keys = bizTag === undefined ? [FLEET_DEFAULT_KEY] : [FLEET_DEFAULT_KEY, bizTag];
  const { rows } = await tx<SemanticsRow>(
    sql`SELECT biz_tag, semantics FROM ${TABLE.semantics} WHERE biz_tag IN ${list(keys)} FOR UPDATE`,
  );
  return { fleet: pick(rows, FLEET_DEFAULT_KEY), own: bizTag === undefined ? undefined : pick(rows, bizTag) };
}

/** max_id + `by` (0 still writes the row, so a claim in flight and the switch take turns on its lock). */
async function bumpTag(tx: Tx, bizTag: string, by: 0 | 1): Promise<void> {
  const limit = MAX_ID - BigInt(by);
  await tx(sql`UPDATE ${TABLE.tombstone} SET max_id = max_id + ${by} WHERE biz_tag = ${bizTag} AND max_id <= ${limit}`);
  await tx(
    sql`UPDATE ${TABLE.alloc} SET max_id = max_id + ${by}, update_time = CURRENT_TIMESTAMP
        WHERE biz_tag = ${bizTag} AND max_id <= ${limit}`,
  );
}

/** Every row and tombstone that follows the fleet default (no row of its own): max_id + `by`; rows that grew. */
async function bumpDefaultFollowers(tx: Tx, by: 0 | 1): Promise<number> {
  const limit = MAX_ID - BigInt(by);
  const followers = sql`NOT EXISTS (SELECT 1 FROM ${TABLE.semantics} s WHERE s.biz_tag = t.biz_tag) AND t.max_id <= ${limit}`;
  await tx(sql`UPDATE ${TABLE.tombstone} t SET max_id = t.max_id + ${by} WHERE ${followers}`);
  const changed = await tx(
    sql`UPDATE ${TABLE.alloc} t SET max_id = t.max_id + ${by}, update_time = CURRENT_TIMESTAMP WHERE ${followers}`,
  );
  return by === 1 ? changed.affected : 0;
}

function pick(rows: SemanticsRow[], key: string): Semantics | undefined {
  return storedSemantics(rows.find((r) => r.biz_tag === key)?.semantics);
}
