/**
 * The fleet registry's statements on a real SQLite file, a real MariaDB, a real PostgreSQL and a 3-node Galera cluster: the conditional
 * registration (ten concurrent registrations of one id through ten separate stores → exactly one wins; on Galera
 * through three nodes at once, where the losers' certification failures are retried and then see the winner), take-over only of a row
 * as it was seen, heartbeats only by the holder, goodbye, gone on the database clock, and pruning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeState } from '../../lib/fleet/nodeView';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import type { NodeRegistration } from '../../lib/fleet/nodeStore';
import type { LeafStore } from '../../lib/store/leafStore';
import { sleep } from '../../tools/harness';
import { GaleraCluster, type TestDatabase } from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, tempDir } from '../support/context';

interface Dialect {
  name: string;
  /** `n` stores on one database, each with its own connection(s), as n processes would have. */
  open(n: number): Promise<Array<Pick<LeafStore, 'nodes' | 'close'>>>;
  teardown(): Promise<void>;
}

let tmp: TempDir;
let database: TestDatabase | undefined;
let pgDatabase: TestDatabase | undefined;
let galera: GaleraCluster | undefined;

beforeAll(async () => {
  tmp = tempDir('leaf-it-nodes-');
});
afterAll(async () => {
  await database?.drop();
  await pgDatabase?.drop();
  tmp?.remove();
});

const dialects: Dialect[] = [
  {
    name: 'sqlite',
    async open(n) {
      const file = tmp.file('nodes.db');
      return Array.from({ length: n }, () => new SqliteStore({ file }));
    },
    async teardown() {},
  },
  {
    name: 'galera (3 nodes; each store prefers another node)',
    async open(n) {
      galera ??= await GaleraCluster.create({ nodes: 3 });
      const db = await galera.createDatabase('leaf_gnodes');
      const cluster = galera;
      return Promise.all(
        Array.from({ length: n }, (_, i) =>
          MysqlStore.open({
            url: cluster.multiHostUrl([i % 3, (i + 1) % 3, (i + 2) % 3], db.name),
            connectionLimit: 2,
          }),
        ),
      );
    },
    async teardown() {
      await galera?.destroy();
    },
  },
  {
    name: 'mariadb',
    async open(n) {
      database ??= await freshMysqlDatabase();
      const url = database.url;
      return Promise.all(Array.from({ length: n }, () => MysqlStore.open({ url, connectionLimit: 2 })));
    },
    async teardown() {},
  },
  {
    name: 'postgres',
    async open(n) {
      pgDatabase ??= await freshPgDatabase();
      const url = pgDatabase.url;
      return Promise.all(Array.from({ length: n }, () => PostgresStore.open({ url, connectionLimit: 2 })));
    },
    async teardown() {},
  },
];

function registration(nodeId: string, instanceId: string): NodeRegistration {
  return { nodeId, instanceId, address: `${instanceId}:3000`, version: '0.1.0', startedAt: Date.now(), snapshot: '{}' };
}

describe.each(dialects)('leaf_node statements ($name)', (dialect) => {
  let stores: Array<Pick<LeafStore, 'nodes' | 'close'>> = [];
  beforeAll(async () => {
    stores = await dialect.open(10);
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await dialect.teardown();
  });

  it('ten concurrent registrations of one id: exactly one wins, and the row is the winner’s', async () => {
    for (let round = 0; round < 5; round++) {
      const nodeId = `race-${round}`;
      const won = await Promise.all(
        stores.map((s, i) => s.nodes.registerNode(registration(nodeId, `inst-${round}-${i}`), 10_000)),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      const row = await stores[0]!.nodes.getNode(nodeId);
      expect(row?.instanceId).toBe(`inst-${round}-${won.indexOf(true)}`);
      expect(row?.state).toBe('up');
    }
  });

  it('a live row is refused to others, re-registered by its holder, taken when stopped', async () => {
    const [a, b] = [stores[0]!, stores[1]!];
    expect(await a.nodes.registerNode(registration('n1', 'A'), 10_000)).toBe(true);
    expect(await b.nodes.registerNode(registration('n1', 'B'), 10_000)).toBe(false);
    expect(await a.nodes.registerNode(registration('n1', 'A'), 10_000)).toBe(true); // a retried registration is ours
    expect(await b.nodes.beatNode('n1', 'B', null)).toBe(false);
    expect(await a.nodes.beatNode('n1', 'A', '{"x":1}')).toBe(true);
    expect((await b.nodes.getNode('n1'))?.snapshot).toBe('{"x":1}');
    expect(await a.nodes.beatNode('n1', 'A', null)).toBe(true); // the snapshot unchanged: still one matched row
    expect((await b.nodes.getNode('n1'))?.snapshot).toBe('{"x":1}');
    await b.nodes.stopNode('n1', 'B'); // not its row: nothing happens
    expect((await a.nodes.getNode('n1'))?.state).toBe('up');
    await a.nodes.stopNode('n1', 'A');
    expect((await a.nodes.getNode('n1'))?.state).toBe('stopped');
    expect(await b.nodes.registerNode(registration('n1', 'B'), 10_000)).toBe(true);
    expect(await a.nodes.beatNode('n1', 'A', null)).toBe(false); // the old holder finds it gone and must not fight
  });

  it('a row silent past goneMs (database clock) is taken; take-over needs the row exactly as seen', async () => {
    const [a, b, c] = [stores[0]!, stores[1]!, stores[2]!];
    expect(await a.nodes.registerNode(registration('n2', 'A'), 10_000)).toBe(true);
    await sleep(60);
    expect(await b.nodes.registerNode(registration('n2', 'B'), 10_000)).toBe(false);
    expect(await b.nodes.registerNode(registration('n2', 'B'), 50)).toBe(true);
    const seen = (await c.nodes.getNode('n2'))!;
    expect(seen.instanceId).toBe('B');
    await sleep(5);
    expect(await b.nodes.beatNode('n2', 'B', null)).toBe(true); // its heartbeat moved: alive
    expect(await c.nodes.takeOverNode(registration('n2', 'C'), seen)).toBe(false);
    const now = (await c.nodes.getNode('n2'))!;
    expect(await c.nodes.takeOverNode(registration('n2', 'C'), now)).toBe(true);
    expect((await a.nodes.getNode('n2'))?.instanceId).toBe('C');
  });

  it('lists rows with the database clock (also when empty of others), derives gone, and prunes old rows', async () => {
    const a = stores[0]!;
    const before = Date.now();
    const { dbNow, rows } = await a.nodes.listNodes();
    expect(Math.abs(dbNow - before)).toBeLessThan(5_000); // the database's clock, near ours on one machine
    const n1 = rows.find((r) => r.nodeId === 'n1')!;
    expect(n1.snapshot).toBe('{}');
    expect(nodeState(n1, dbNow, 10_000)).toBe('up');
    expect(nodeState(n1, dbNow + 10_001, 10_000)).toBe('gone');
    const light = await a.nodes.listNodes(false);
    expect(light.rows.map((r) => r.snapshot)).toEqual(rows.map(() => ''));
    expect(light.rows.map((r) => r.nodeId)).toEqual(rows.map((r) => r.nodeId));
    expect(await a.nodes.pruneNodes(60_000)).toBe(0);
    await sleep(30);
    await a.nodes.beatNode('n2', 'C', null);
    expect(await a.nodes.pruneNodes(20)).toBe(rows.length - 1); // all but n2, which just beat
    expect((await a.nodes.listNodes()).rows.map((r) => r.nodeId)).toEqual(['n2']);
    await a.nodes.pruneNodes(0);
    await sleep(5);
    await a.nodes.pruneNodes(1);
    const empty = await a.nodes.listNodes();
    expect(empty.rows).toEqual([]);
    expect(Math.abs(empty.dbNow - Date.now())).toBeLessThan(5_000);
  });
});
