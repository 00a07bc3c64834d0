/**
 * The fleet's snowflake layout (leaf_setting) on real MariaDB, PostgreSQL and SQLite: the first node records its
 * layout and epoch; a node with the same bits (by any name) starts; one with another layout or epoch is refused
 * naming both and the node that recorded the fleet's. Three nodes racing to record different layouts: exactly one
 * layout wins, and every node that lost is refused. A database's region: recorded once with an identity of its own;
 * a node of another number or count is refused naming both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRegion } from '../../lib/settings/region';
import { ensureFleetLayout } from '../../lib/snowflake/fleetLayout';
import { DEFAULT_EPOCH_MS, LEAF_EPOCH_MS, SnowflakeLayout } from '../../lib/snowflake/layout';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import type { LeafStore } from '../../lib/store/leafStore';
import type { TestDatabase } from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, tempDir } from '../support/context';

let tmp: TempDir;
const dbs: TestDatabase[] = [];
const stores: LeafStore[] = [];

beforeAll(() => {
  tmp = tempDir('leaf-it-layout-');
});
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
  for (const d of dbs) await d.drop().catch(() => undefined);
  tmp?.remove();
});

type Dialect = 'mysql' | 'postgres' | 'sqlite';
/** `count` stores on one fresh database, each with its own connections, as separate nodes would have. */
const open: Record<Dialect, (count: number) => Promise<LeafStore[]>> = {
  async postgres(count) {
    const db = await freshPgDatabase();
    dbs.push(db);
    const opened = await Promise.all(Array.from({ length: count }, () => PostgresStore.open({ url: db.url })));
    stores.push(...opened);
    return opened;
  },
  async mysql(count) {
    const db = await freshMysqlDatabase();
    dbs.push(db);
    const opened = await Promise.all(Array.from({ length: count }, () => MysqlStore.open({ url: db.url })));
    stores.push(...opened);
    return opened;
  },
  async sqlite(count) {
    const file = tmp.file(`l-${stores.length}.db`);
    const opened = Array.from({ length: count }, () => new SqliteStore({ file }));
    stores.push(...opened);
    return opened;
  },
};

const layout = (text: string) => SnowflakeLayout.parse(text) as SnowflakeLayout;
const LEAF = SnowflakeLayout.preset('leaf');
const SONY = SnowflakeLayout.preset('sonyflake');

describe.each(['mysql', 'postgres', 'sqlite'] as const)('%s: the fleet snowflake layout', (dialect) => {
  it('the first node records it; the same bits start; another layout or epoch is refused naming both', async () => {
    const [store] = await open[dialect](1);
    const settings = store!.settings;
    const start = (l: SnowflakeLayout, epochMs: number, nodeId: string) =>
      ensureFleetLayout({ store: settings, layout: l, epochMs, nodeId });
    await start(LEAF, DEFAULT_EPOCH_MS, 'first');
    await start(LEAF, DEFAULT_EPOCH_MS, 'second');
    await start(layout('time=41,worker=10,sequence=12'), DEFAULT_EPOCH_MS, 'same-bits');
    await expect(start(SONY, DEFAULT_EPOCH_MS, 'sony')).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringMatching(
        /^This node's snowflake layout sonyflake \(39 bits of 10 ms \| 8 sequence \| 16 worker\) with epoch 2026-01-01T00:00:00\.000Z differs from the fleet's, leaf \(41 bits of 1 ms \| 10 worker \| 12 sequence\) with epoch 2026-01-01T00:00:00\.000Z, recorded by first at \d{4}-\d\d-\d\dT/,
      ),
    });
    await expect(start(LEAF, LEAF_EPOCH_MS, 'leaf-epoch')).rejects.toMatchObject({
      message: expect.stringContaining('with epoch 2010-11-04T01:42:54.657Z differs from the fleet'),
    });
  });

  it('three nodes racing to record three layouts: one wins, the other two are refused', async () => {
    const three = await open[dialect](3);
    const layouts = [LEAF, SONY, SnowflakeLayout.preset('js-safe')];
    const outcomes = await Promise.allSettled(
      three.map((s, i) =>
        ensureFleetLayout({ store: s.settings, layout: layouts[i]!, epochMs: DEFAULT_EPOCH_MS, nodeId: `n${i}` }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(rejected.map((o) => (o.reason as { code: string }).code)).toEqual(['invalid_config', 'invalid_config']);
  });
});

describe.each(['mysql', 'postgres', 'sqlite'] as const)('%s: the region a database serves', (dialect) => {
  it('recorded once, with its own identity; another number or count is refused naming both', async () => {
    const [store] = await open[dialect](1);
    const start = (region: number, regions: number, nodeId: string) =>
      ensureRegion({ store: store!.settings, config: { region, regions }, nodeId });
    const first = await start(1, 3, 'eu-a');
    expect(first).toEqual({ region: 1, regions: 3, database: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(await start(1, 3, 'eu-b')).toEqual(first); // the same identity for every node of the database
    await expect(start(0, 3, 'us-a')).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringMatching(
        /^This node is region 0 of 3 \(LEAF_REGION, LEAF_REGIONS\), but its database serves region 1 of 3, recorded by eu-a at /,
      ),
    });
    await expect(start(0, 1, 'plain')).rejects.toMatchObject({
      message: expect.stringContaining(
        'This node is one region (regions off) (LEAF_REGION, LEAF_REGIONS), but its database serves region 1 of 3',
      ),
    });
  });
});
