/**
 * LEAF_WORKER_IDS with real server processes (production build): ten nodes, each its own LEAF_NODE_ID, started at
 * once on one database with 8 reserved ids (512-519) — on one SQLite file and on MariaDB. Exactly 8 serve, each
 * with its own id of the set; the other 2 answer snowflake 503 naming the set, and none touches an id outside it,
 * not even the expired lease left at id 3 (the most tempting take-over there is). A winner that stops hands its id
 * to a waiting node, still inside the set.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NodeAnswer } from '../../lib/fleet/nodeView';
import { DEFAULT_EPOCH_MS, decompose } from '../../lib/snowflake/layout';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import type { LeafStore } from '../../lib/store/leafStore';
import { type NodeServer, pollFor, sleep, startNodeServer, stopChild } from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, tempDir } from '../support/context';

const TOKEN = 'worker-ids-admin-token';
const NODES = 10;
const RESERVED = '512-519';
const RESERVED_IDS = [512, 513, 514, 515, 516, 517, 518, 519];
// Long enough that a node starved while ten Next servers boot on two cores rarely loses its lease; a take-over that
// still happens is correct (the taker waits out the old holder's fence) and the settle poll below waits for it.
const LEASE_MS = 5_000;
const ALL_HELD = `All 8 worker ids of LEAF_WORKER_IDS=${RESERVED} are leased by live nodes.`;

let tmp: TempDir;
let baseEnv: Record<string, string | undefined>;
let servers: NodeServer[] = [];
const cleanups: Array<() => Promise<void>> = [];

beforeAll(() => {
  tmp = tempDir('leaf-it-workerids-');
  baseEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('LEAF_') && k !== 'DATABASE_URL') baseEnv[k] = v;
});
afterEach(async () => {
  await Promise.all(servers.map((s) => stopChild(s.child, 0, { signal: 'SIGKILL' })));
  servers = [];
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});
afterAll(() => tmp?.remove());

interface Answer {
  status: number;
  body: { id?: string; error?: { code: string; message: string } };
}

async function get(server: NodeServer, path: string): Promise<Answer> {
  const r = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: AbortSignal.timeout(5_000),
  });
  return { status: r.status, body: (await r.json()) as Answer['body'] };
}

/** What each server's snowflake route answers now: its worker id, or its 503 message. */
async function survey(): Promise<Array<{ server: NodeServer; workerId: number | null; refusal: string | null }>> {
  return Promise.all(
    servers.map(async (server) => {
      const a = await get(server, '/api/id/snowflake');
      if (a.status === 200)
        return { server, workerId: decompose(BigInt(a.body.id!), DEFAULT_EPOCH_MS).workerId, refusal: null };
      expect(a.status, JSON.stringify(a.body)).toBe(503);
      expect(a.body.error?.code).toBe('snowflake_unavailable');
      return { server, workerId: null, refusal: a.body.error!.message };
    }),
  );
}

const ascending = (ids: Array<number | null>) => ids.filter((id): id is number => id !== null).sort((a, b) => a - b);

describe.each(['sqlite', 'mysql', 'postgres'] as const)('reserved worker ids, 10 servers at once (%s)', (dialect) => {
  it(`exactly 8 lease distinct ids of ${RESERVED}, 2 answer 503 naming the set; a freed id goes to a waiting node`, async () => {
    // The database exists and is migrated before the crowd arrives; one lease outside the set has long expired.
    let store: Pick<LeafStore, 'workers' | 'close'>;
    const env: Record<string, string | undefined> = {
      ...baseEnv,
      NODE_ENV: 'production',
      LEAF_ADMIN_TOKEN: TOKEN,
      LEAF_LOG_LEVEL: 'warn',
      LEAF_DATA_DIR: tmp.path,
    };
    if (dialect === 'sqlite') {
      env.LEAF_SQLITE_FILE = tmp.file('leaf.db');
      store = new SqliteStore({ file: tmp.file('leaf.db') });
    } else {
      const database = dialect === 'mysql' ? await freshMysqlDatabase() : await freshPgDatabase();
      cleanups.push(() => database.drop());
      env.DATABASE_URL = database.url;
      store =
        dialect === 'mysql'
          ? await MysqlStore.open({ url: database.url })
          : await PostgresStore.open({ url: database.url });
    }
    cleanups.push(() => store.close());
    expect(await store.workers.claimFreeWorker(3, 'java-leaf-gone:8080', 'i-old', 1)).toBe(true);

    const started = Date.now();
    servers = await Promise.all(
      Array.from({ length: NODES }, (_, i) =>
        startNodeServer({
          env: {
            ...(env as NodeJS.ProcessEnv),
            LEAF_NODE_ID: `crowd-${i}`,
            LEAF_WORKER_IDS: RESERVED,
            LEAF_WORKER_LEASE_MS: String(LEASE_MS),
            LEAF_NODE_HEARTBEAT_MS: '500',
            LEAF_NODE_GONE_MS: '2000',
          },
          timeoutMs: 60_000,
        }),
      ),
    );
    const startMs = Date.now() - started;

    // Settled once 8 serve and 2 refuse for want of an id. Before that a start that met a busy database retries within
    // 1 s, and a node that took over the id of a holder starved past its lease waits out that holder's fence (≤ a lease).
    let last: Awaited<ReturnType<typeof survey>> = [];
    await pollFor(30_000, async () => {
      last = await survey();
      const settled =
        last.filter((s) => s.refusal === ALL_HELD).length === 2 && last.filter((s) => s.workerId !== null).length === 8;
      return settled ? last : undefined;
    });
    const first = last;
    expect(
      ascending(first.map((s) => s.workerId)),
      `10 servers up in ${startMs} ms; refusals: ${JSON.stringify(first.map((s) => s.refusal))}`,
    ).toEqual(RESERVED_IDS);
    expect(first.filter((s) => s.workerId === null).map((s) => s.refusal)).toEqual([ALL_HELD, ALL_HELD]);
    const rows = await store.workers.listWorkers();
    expect(rows.map((r) => r.workerId)).toEqual([3, ...RESERVED_IDS]);
    expect(rows[0]).toMatchObject({ nodeId: 'java-leaf-gone:8080', instanceId: 'i-old' }); // expired, yet untouched

    // The console's view: /api/admin/workers and every node's heartbeat carry the range.
    const workers = await get(first[0]!.server, '/api/admin/workers');
    expect(workers.body).toMatchObject({ workerIds: RESERVED, self: { workerIds: RESERVED } });
    const published = await pollFor(10_000, async () => {
      const r = await fetch(`${first[0]!.server.url}/api/admin/nodes?tags=none`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const nodes = ((await r.json()) as { nodes: NodeAnswer[] }).nodes.filter((n) => n.nodeId.startsWith('crowd-'));
      // Heartbeats lag the leases (a beat, plus the 1 s read cache): wait until the 8 ids show there too.
      const settled =
        nodes.length === NODES &&
        nodes.every((n) => n.snowflake.workerIds === RESERVED) &&
        nodes.filter((n) => n.snowflake.workerId !== null).length === 8;
      return settled ? nodes : undefined;
    });
    expect(published, 'the heartbeats never showed 8 leased ids with the range').toBeDefined();
    expect(published?.map((n) => n.snowflake.workerId).filter((id) => id !== null).length).toBe(8);

    // Past a renewal, the same 8 hold the same ids: no ping-pong, and the 2 still wait.
    await sleep(LEASE_MS / 2);
    const again = await survey();
    expect(again.map((s) => s.workerId)).toEqual(first.map((s) => s.workerId));

    // A winner stops gracefully (its lease released): a waiting node takes that id within a retry (≤ 1 s).
    const leaving = first.find((s) => s.workerId !== null)!;
    await stopChild(leaving.server.child, 5_000);
    servers = servers.filter((s) => s !== leaving.server);
    const after = await pollFor(5_000, async () => {
      const s = await survey();
      return s.filter((x) => x.workerId !== null).length === 8 ? s : undefined;
    });
    expect(ascending(after?.map((s) => s.workerId) ?? []), 'no waiting node took the freed id').toEqual(RESERVED_IDS);
    expect(
      (await store.workers.listWorkers()).every((r) => r.workerId === 3 || (r.workerId >= 512 && r.workerId <= 519)),
    ).toBe(true);
  }, 150_000);
});
