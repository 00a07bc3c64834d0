import { sql } from 'drizzle-orm';
import type { RegionInfo } from '../../settings/region';
import { REGION_SETTING } from '../../settings/region';
import type { RegionWrite } from '../../settings/regionChange';
import type { LiveProcess, RegionChangeStore } from '../../settings/regionChangeStore';
import { exactId } from '../exactId';
import { idBigint } from '../../segment/id';
import type { ServerExecutor } from '../serverExecutor';
import type { ServerDialect } from './dialect';
import { TABLE } from './query';

/** A change of the region count on a server database (lib/settings/regionChange.ts). */
export class ServerRegionChange implements RegionChangeStore {
  constructor(
    private readonly exec: ServerExecutor,
    private readonly dialect: ServerDialect,
  ) {}

  async readRegion(): Promise<RegionInfo | null> {
    const value = await this.readSetting(REGION_SETTING);
    return value === null ? null : parseRegion(value);
  }

  async readSetting(name: string): Promise<string | null> {
    const [row] = await this.exec.read<{ value: string }>(sql`SELECT value FROM ${TABLE.setting} WHERE name = ${name}`);
    return row?.value ?? null;
  }

  async readPositions(): Promise<{ tags: Map<string, bigint>; periods: Map<string, bigint> }> {
    const [alloc, tombs, periods] = await Promise.all([
      this.exec.read<{ biz_tag: string; max_id: string }>(sql`SELECT biz_tag, max_id FROM ${TABLE.alloc}`),
      this.exec.read<{ biz_tag: string; max_id: string }>(sql`SELECT biz_tag, max_id FROM ${TABLE.tombstone}`),
      this.exec.read<{ biz_tag: string; period_key: string; max_id: string | number }>(
        sql`SELECT biz_tag, period_key, max_id FROM ${TABLE.period}`,
      ),
    ]);
    return positions(alloc, tombs, periods);
  }

  async readMaxIds(): Promise<Map<string, bigint>> {
    const rows = await this.exec.read<{ biz_tag: string; max_id: string }>(
      sql`SELECT biz_tag, max_id FROM ${TABLE.alloc}`,
    );
    return new Map(rows.map((r) => [r.biz_tag, idBigint(exactId(r.max_id, r.biz_tag))]));
  }

  async liveProcesses(goneMs: number): Promise<LiveProcess[]> {
    const [participants, nodes] = await Promise.all([
      this.exec.read<{ instance_id: string; kind: string; label: string; host: string; proc_key: string; ago: string }>(
        sql`SELECT instance_id, kind, label, host, proc_key, ${this.dialect.nowMs} - seen_at AS ago FROM ${TABLE.participant}`,
      ),
      this.exec.read<{ node_id: string; instance_id: string; address: string; ago: string }>(
        sql`SELECT node_id, instance_id, address, ${this.dialect.nowMs} - heartbeat_at AS ago FROM ${TABLE.node}
            WHERE state = 'up' AND heartbeat_at > ${this.dialect.nowMs} - ${goneMs}`,
      ),
    ]);
    return liveOf(participants, nodes);
  }

  async removeParticipant(instanceId: string): Promise<void> {
    await this.exec.write(sql`DELETE FROM ${TABLE.participant} WHERE instance_id = ${instanceId}`, true);
  }

  applyRegionChange(write: RegionWrite, setBy: string, drop: readonly string[]): Promise<void> {
    return this.exec.transaction(async (tx) => {
      const { rows } = await tx<{ biz_tag: string }>(sql`SELECT biz_tag FROM ${TABLE.alloc} FOR UPDATE`);
      const present = new Set(rows.map((r) => r.biz_tag));
      for (const [bizTag, floor] of write.tags) {
        if (present.has(bizTag)) {
          await tx(sql`UPDATE ${TABLE.alloc} SET max_id = ${floor} WHERE biz_tag = ${bizTag} AND max_id < ${floor}`);
          continue;
        }
        await tx(
          this.dialect.upsert(
            TABLE.tombstone,
            { biz_tag: bizTag, max_id: floor },
            ['biz_tag'],
            (current, incoming) => ({
              max_id: sql`GREATEST(${current('max_id')}, ${incoming('max_id')})`,
            }),
          ),
        );
      }
      for (const [key, floor] of write.periods) {
        const [bizTag, periodKey] = key.split('\u0000') as [string, string];
        const row = { biz_tag: bizTag, period_key: periodKey, max_id: floor, step: 0, update_time: this.dialect.nowMs };
        await tx(
          this.dialect.upsert(TABLE.period, row, ['biz_tag', 'period_key'], (current, incoming) => ({
            max_id: sql`GREATEST(${current('max_id')}, ${incoming('max_id')})`,
          })),
        );
      }
      for (const name of [REGION_SETTING, ...drop]) await tx(sql`DELETE FROM ${TABLE.setting} WHERE name = ${name}`);
      await tx(
        sql`INSERT INTO ${TABLE.setting} (name, value, set_by, set_at)
            VALUES (${REGION_SETTING}, ${JSON.stringify(write.record)}, ${setBy}, ${this.dialect.nowMs})`,
      );
    });
  }
}

export function parseRegion(value: string): RegionInfo | null {
  try {
    const v = JSON.parse(value) as Partial<RegionInfo>;
    return Number.isInteger(v.region) && Number.isInteger(v.regions) && typeof v.database === 'string'
      ? { region: v.region!, regions: v.regions!, database: v.database }
      : null;
  } catch {
    return null;
  }
}

type Held = { biz_tag: string; max_id: string | number | bigint };

/** Per tag the larger of its row and its tombstone; per formatted period its row. Exact (decimal strings). */
export function positions(
  alloc: readonly Held[],
  tombs: readonly Held[],
  periods: ReadonlyArray<Held & { period_key: string }>,
): { tags: Map<string, bigint>; periods: Map<string, bigint> } {
  const tags = new Map<string, bigint>();
  for (const r of [...alloc, ...tombs]) {
    const id = BigInt(r.max_id);
    if (id > (tags.get(r.biz_tag) ?? -1n)) tags.set(r.biz_tag, id);
  }
  return { tags, periods: new Map(periods.map((p) => [`${p.biz_tag}\u0000${p.period_key}`, BigInt(p.max_id)])) };
}

export function liveOf(
  participants: ReadonlyArray<{
    instance_id: string;
    kind: string;
    label: string;
    host: string;
    proc_key: string;
    ago: string | number;
  }>,
  nodes: ReadonlyArray<{ node_id: string; instance_id: string; address: string; ago: string | number }>,
): LiveProcess[] {
  return [
    ...participants.map((p) => ({
      kind: (p.kind === 'embedded' ? 'embedded' : 'participant') as LiveProcess['kind'],
      label: p.label,
      host: p.host,
      procKey: p.proc_key,
      instanceId: p.instance_id,
      lastSeenAgoMs: Number(p.ago),
    })),
    ...nodes
      .filter((n) => !participants.some((p) => p.instance_id === n.instance_id))
      .map((n) => ({
        kind: 'node' as const,
        label: n.node_id,
        host: n.address,
        procKey: '',
        instanceId: n.instance_id,
        lastSeenAgoMs: Number(n.ago),
      })),
  ];
}
