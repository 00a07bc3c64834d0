/**
 * Issue 10's fleet proof: many LeafClient processes leasing from three real server.ts nodes on one MariaDB table
 * until 10,000,000 IDs went out. Each client lists the nodes in its own rotation, so every node serves leases to
 * several clients at once, and leases are capped small enough that each client asks a hundred times or more. Checked:
 * every client issued its quota after a hundred lease requests or more, no ID twice across all clients (sorted as
 * BigUint64), and every ID lies inside what leaf_alloc handed out; the requests per node are reported.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MysqlStore } from '../../lib/store/mysql';
import { type NodeServer, type TestDatabase, startNodeServer, stopAllChildren } from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, mariadbAvailable, tempDir } from '../support/context';
import { sortedIdFiles, repeatsInSorted } from '../support/idFiles';
import { killAllWorkers, startWorker } from '../support/procs';

const NODES = 3;
const CLIENTS = 5;
const TOTAL = 10_000_000;
const QUOTA = TOTAL / CLIENTS;
/** Leases of at most this many IDs: a client of 2,000,000 asks at least 100 times, spread over the nodes. */
const MAX_LEASE = 20_000;
const TAG = 'client-fleet';
const TOKEN = 'client-fleet-token';
const START_MAX_ID = 5_000;

let tmp: TempDir;
let database: TestDatabase | undefined;

beforeAll(() => {
  tmp = tempDir('leaf-it-client-fleet-');
});
afterAll(async () => {
  await killAllWorkers();
  await stopAllChildren(0);
  await database?.drop();
  tmp?.remove();
});

interface Done {
  type: 'done';
  issued: number;
  ms: number;
  requests: Record<string, { ok: number; failed: number }>;
}

it(`${CLIENTS} client processes lease ${TOTAL.toLocaleString('en-US')} IDs from ${NODES} nodes on one MariaDB: no ID twice`, async (ctx) => {
  if (!mariadbAvailable()) ctx.skip();
  database = await freshMysqlDatabase();
  const store = await MysqlStore.open({ url: database.url });
  try {
    await store.tags.createTag({ bizTag: TAG, step: 1_000, maxId: START_MAX_ID });
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      LEAF_ID_TOKEN: TOKEN,
      LEAF_LOG_LEVEL: 'warn',
      LEAF_SNOWFLAKE: 'off',
    };
    const nodes: NodeServer[] = await Promise.all(
      Array.from({ length: NODES }, (_, i) =>
        startNodeServer({ env: { ...env, LEAF_NODE_ID: `fleet-${i}` } as NodeJS.ProcessEnv, timeoutMs: 60_000 }),
      ),
    );
    const urls = nodes.map((n) => n.url);

    const clients = Array.from({ length: CLIENTS }, (_, i) => {
      const handle = startWorker('leafClient.mts', `fleet-client-${i}`);
      const rotated = [...urls.slice(i % NODES), ...urls.slice(0, i % NODES)];
      handle.send({
        type: 'config',
        urls: rotated,
        token: TOKEN,
        tag: TAG,
        quota: QUOTA,
        outFile: tmp.file(`ids-${i}.bin`),
        seed: 7_000 + i,
        maxLease: MAX_LEASE,
        leaseTargetMs: 50,
      });
      return handle;
    });
    await Promise.all(clients.map((c) => c.next('ready', 30_000)));
    for (const c of clients) c.send({ type: 'go' });
    const done = await Promise.all(clients.map((c) => c.next<Done>('done', 180_000)));
    for (const d of done) expect(d.issued).toBe(QUOTA);

    // Each client asked often enough to interleave with the others. Which nodes answered is the run's shape, not a
    // property (a client that times out once moves to the next node for good): it is reported below.
    for (const d of done)
      expect(Object.values(d.requests).reduce((n, r) => n + r.ok, 0)).toBeGreaterThanOrEqual(QUOTA / MAX_LEASE);

    const all = sortedIdFiles(
      done.map((_, i) => tmp.file(`ids-${i}.bin`)),
      QUOTA,
    );
    expect(repeatsInSorted(all)).toBe(0);
    const row = await store.tags.getTag(TAG);
    expect(all[0]).toBeGreaterThan(BigInt(START_MAX_ID));
    expect(all[all.length - 1]).toBeLessThanOrEqual(BigInt(row?.maxId ?? 0));
    console.log(
      `[client-fleet] ${CLIENTS} clients × ${QUOTA.toLocaleString('en-US')} IDs from ${NODES} nodes, ms ${done.map((d) => d.ms).join('/')}, ` +
        `lease requests per node ${urls.map((u) => done.reduce((n, d) => n + (d.requests[u]?.ok ?? 0), 0)).join('/')}, final max_id ${row?.maxId}`,
    );
  } finally {
    await store.close();
  }
});
