import { sql } from 'drizzle-orm';
import type { RegionInfo } from '../../settings/region';
import { REGION_SETTING } from '../../settings/region';
import type { RegionWrite } from '../../settings/regionChange';
import type { LiveProcess, RegionChangeStore } from '../../settings/regionChangeStore';
import { liveOf, parseRegion, positions } from '../server/regionChange';
import type { SqliteExecutor } from './executor';
import { DB_NOW_MS } from './sql';

type Held = { biz_tag: string; max_id: string };

/** A change of the region count on a SQLite file (lib/settings/regionChange.ts), under its write lock. */
export class SqliteRegionChange implements RegionChangeStore {
  constructor(private readonly exec: SqliteExecutor) {}

  async readRegion(): Promise<RegionInfo | null> {
    const value = await this.readSetting(REGION_SETTING);
    return value === null ? null : parseRegion(value);
  }

  async readSetting(name: string): Promise<string | null> {
    const row = this.exec.read((db) =>
      db.get<{ value: string }>(sql`SELECT value FROM leaf_setting WHERE name = ${name}`),
    );
    return row?.value ?? null;
  }

  async readPositions(): Promise<{ tags: Map<string, bigint>; periods: Map<string, bigint> }> {
    return this.exec.read((db) =>
      positions(
        db.all<Held>(sql`SELECT biz_tag, CAST(max_id AS TEXT) AS max_id FROM leaf_alloc`),
        db.all<Held>(sql`SELECT biz_tag, CAST(max_id AS TEXT) AS max_id FROM leaf_alloc_tombstone`),
        db.all<Held & { period_key: string }>(
          sql`SELECT biz_tag, period_key, CAST(max_id AS TEXT) AS max_id FROM leaf_format_period`,
        ),
      ),
    );
  }

  async readMaxIds(): Promise<Map<string, bigint>> {
    const rows = this.exec.read((db) =>
      db.all<Held>(sql`SELECT biz_tag, CAST(max_id AS TEXT) AS max_id FROM leaf_alloc`),
    );
    return new Map(rows.map((r) => [r.biz_tag, BigInt(r.max_id)]));
  }

  async liveProcesses(goneMs: number): Promise<LiveProcess[]> {
    return this.exec.read((db) =>
      liveOf(
        db.all(
          sql`SELECT instance_id, kind, label, host, proc_key, ${DB_NOW_MS} - seen_at AS ago FROM leaf_participant`,
        ),
        db.all(
          sql`SELECT node_id, instance_id, address, ${DB_NOW_MS} - heartbeat_at AS ago FROM leaf_node
              WHERE state = 'up' AND heartbeat_at > ${DB_NOW_MS} - ${goneMs}`,
        ),
      ),
    );
  }

  async removeParticipant(instanceId: string): Promise<void> {
    this.exec.write((db) => db.run(sql`DELETE FROM leaf_participant WHERE instance_id = ${instanceId}`));
  }

  async applyRegionChange(write: RegionWrite, setBy: string, drop: readonly string[]): Promise<void> {
    this.exec.transaction((db) => {
      for (const [bizTag, floor] of write.tags) {
        const raised = db.run(sql`UPDATE leaf_alloc SET max_id = max(max_id, ${floor}) WHERE biz_tag = ${bizTag}`);
        if (raised.changes > 0) continue;
        db.run(sql`INSERT INTO leaf_alloc_tombstone (biz_tag, max_id) VALUES (${bizTag}, ${floor})
          ON CONFLICT (biz_tag) DO UPDATE SET max_id = max(max_id, excluded.max_id)`);
      }
      for (const [key, floor] of write.periods) {
        const [bizTag, periodKey] = key.split('\u0000') as [string, string];
        db.run(sql`INSERT INTO leaf_format_period (biz_tag, period_key, max_id, step, update_time)
          VALUES (${bizTag}, ${periodKey}, ${floor}, 0, ${DB_NOW_MS})
          ON CONFLICT (biz_tag, period_key) DO UPDATE SET max_id = max(max_id, excluded.max_id)`);
      }
      for (const name of [REGION_SETTING, ...drop]) db.run(sql`DELETE FROM leaf_setting WHERE name = ${name}`);
      db.run(sql`INSERT INTO leaf_setting (name, value, set_by, set_at)
        VALUES (${REGION_SETTING}, ${JSON.stringify(write.record)}, ${setBy}, ${DB_NOW_MS})`);
    });
  }
}
