/**
 * `npm run regions -- change` on real databases, run as a user runs it: region 0 on MariaDB at position ~100, region
 * 1 on a SQLite file at ~10,000 (a tag deleted there too, a formatted period), both under two regions; the move to
 * three regions with a new PostgreSQL database for region 2. Refused while a process is registered; then every ID
 * any region issues is above every ID issued before, none twice, each region its remainder; the snowflake record
 * goes and the floor is printed.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { thisProcess } from '../../lib/ordered/procIdentity';
import { ensureRegion } from '../../lib/settings/region';
import { ensureFleetLayout } from '../../lib/snowflake/fleetLayout';
import { SnowflakeLayout } from '../../lib/snowflake/layout';
import { idBigint } from '../../lib/segment/id';
import { openStore } from '../../lib/store';
import type { LeafStore } from '../../lib/store/leafStore';
import { defaultMigrationsDir } from '../../lib/store/migrations';
import { storeUrlTarget } from '../../lib/store/target';
import type { TestDatabase } from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, mariadbAvailable, tempDir } from '../support/context';

let tmp: TempDir;
const dbs: TestDatabase[] = [];
const stores: LeafStore[] = [];
beforeAll(() => {
  tmp = tempDir('leaf-it-region-change-');
});
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
  for (const d of dbs) await d.drop().catch(() => undefined);
  tmp?.remove();
});

async function open(url: string): Promise<LeafStore> {
  const store = await openStore({ ...storeUrlTarget(url), migrationsDir: defaultMigrationsDir() });
  stores.push(store);
  return store;
}

/** `npm run regions -- …` in a child process, as an operator runs it. */
function regions(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join('scripts', 'regions.ts'), ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Claims `times` segments of `bizTag` and answers their IDs in region `region` of `regions` (leaf-ts semantics). */
async function claimIds(store: LeafStore, bizTag: string, times: number, region: number, count: number) {
  const out: bigint[] = [];
  for (let i = 0; i < times; i++) {
    const { maxId, step } = await store.tags.allocate(bizTag);
    const top = idBigint(maxId);
    for (let p = top - BigInt(step) + 1n; p <= top; p++) out.push(p * BigInt(count) + BigInt(region));
  }
  return out;
}

describe('changing the region count from two to three', () => {
  it('refuses while a process is registered, then raises every region above every ID issued before', async (ctx) => {
    if (!mariadbAvailable()) ctx.skip();
    const mysql = await freshMysqlDatabase();
    const pg = await freshPgDatabase();
    dbs.push(mysql, pg);
    const sqliteUrl = `file:${tmp.file('region1.db')}`;
    const [r0, r1] = [await open(mysql.url), await open(sqliteUrl)];
    const layout = SnowflakeLayout.LEAF.forRegions(2) as SnowflakeLayout;
    const before = { orders: [] as bigint[], gone: [] as bigint[] };
    for (const [k, store] of [r0, r1].entries()) {
      await ensureRegion({ store: store.settings, config: { region: k, regions: 2 }, nodeId: `n${k}` });
      await ensureFleetLayout({ store: store.settings, layout, epochMs: Date.parse('2026-01-01'), nodeId: `n${k}` });
      await store.tags.createTag({ bizTag: 'orders', step: k === 0 ? 10 : 1_000 });
      before.orders.push(...(await claimIds(store, 'orders', 10, k, 2))); // ~100 and ~10,000
    }
    await r1.tags.createTag({ bizTag: 'gone', step: 50 });
    before.gone.push(...(await claimIds(r1, 'gone', 3, 1, 2)));
    await r1.tags.deleteTag('gone');
    await r1.formats.claimPeriod('fmt', '20261207', 40, 999_999);

    // A registered process that is alive (this one): refused, naming it.
    const me = { instanceId: 'it-live-process', kind: 'embedded' as const, label: 'embedded:test', ...thisProcess() };
    await r0.order.registerParticipant(me);
    const refused = regions('change', '--to', '3', '--watch-seconds', '0', mysql.url, sqliteUrl, '--new', pg.url);
    expect(refused.status, refused.out).toBe(1);
    expect(refused.out).toMatch(/embedded embedded:test .* is registered/);
    expect(refused.out).toMatch(/REFUSED/);
    await r0.order.removeParticipant(me.instanceId);

    const done = regions('change', '--to', '3', '--watch-seconds', '1', mysql.url, sqliteUrl, '--new', pg.url);
    expect(done.status, done.out).toBe(0);
    expect(done.out).toMatch(/plan: 2 → 3 regions/);
    expect(done.out).toMatch(/LEAF_SNOWFLAKE_MIN_ID=\d+/);
    const r2 = await open(pg.url);

    const after = { orders: [] as bigint[], gone: [] as bigint[] };
    for (const [k, store] of [r0, r1, r2].entries()) {
      const region = await store.regionChange.readRegion();
      expect(region).toMatchObject({ region: k, regions: 3 });
      expect(await store.regionChange.readSetting('snowflake')).toBeNull();
      // A node of the old count is refused by the record.
      await expect(
        ensureRegion({ store: store.settings, config: { region: k, regions: 2 }, nodeId: 'old' }),
      ).rejects.toMatchObject({ code: 'invalid_config' });
      if (k === 2) await store.tags.createTag({ bizTag: 'orders', step: 100 });
      await store.tags.createTag({ bizTag: 'gone', step: 50 }).catch(() => undefined); // continues above its tombstone
      after.orders.push(...(await claimIds(store, 'orders', 3, k, 3)));
      after.gone.push(...(await claimIds(store, 'gone', 2, k, 3)));
      const [period] = await store.formats.listFormatPeriods('fmt');
      expect(BigInt(period!.maxId) * 3n + BigInt(k)).toBeGreaterThan(40n * 2n + 1n);
    }
    for (const tag of ['orders', 'gone'] as const) {
      const highestBefore = before[tag].reduce((a, b) => (b > a ? b : a), 0n);
      expect(
        after[tag].every((id) => id > highestBefore),
        tag,
      ).toBe(true);
      expect(new Set([...before[tag], ...after[tag]]).size).toBe(before[tag].length + after[tag].length);
    }
  }, 120_000);
});
