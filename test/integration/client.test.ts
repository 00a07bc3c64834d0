/**
 * LeafClient (lib/client) in separate service processes, leasing from two server processes on one SQLite
 * leaf_alloc; server A is SIGKILLed once the clients are a quarter through. Checked: every client finishes its
 * quota by failing over to B, no ID is issued twice across all clients, every ID lies inside what the table
 * handed out, and the kill really cost requests (so failover was exercised, not skipped). The servers are real
 * server.ts processes (production build) answering the range route on the fast lane.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { SqliteStore } from '../../lib/store/sqlite';
import { type NodeServer, startNodeServer, stopAllChildren, stopChild } from '../../tools/harness';
import { type TempDir, tempDir } from '../support/context';
import { sortedIdFiles, repeatsInSorted } from '../support/idFiles';
import { killAllWorkers, startWorker } from '../support/procs';

const CLIENTS = 3;
const QUOTA = 1_000_000;
const TAG = 'client-it';
const TOKEN = 'client-it-token';
const START_MAX_ID = 1_000;

let tmp: TempDir;

beforeAll(() => {
  tmp = tempDir('leaf-it-client-');
});
afterEach(async () => {
  await killAllWorkers();
});
afterAll(async () => {
  await killAllWorkers();
  await stopAllChildren(0);
  tmp?.remove();
});

function startServer(name: string, file: string): Promise<NodeServer> {
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LEAF_SQLITE_FILE: file,
    LEAF_ID_TOKEN: TOKEN,
    LEAF_NODE_ID: name,
    LEAF_LOG_LEVEL: 'warn',
    LEAF_SNOWFLAKE: 'off',
  };
  return startNodeServer({ env: env as NodeJS.ProcessEnv, timeoutMs: 60_000 });
}

interface Done {
  type: 'done';
  issued: number;
  ms: number;
  requests: Record<string, { ok: number; failed: number }>;
}

it('clients in separate processes stay unique while one of two servers is killed mid-run', async () => {
  const file = tmp.file('leaf.db');
  const setup = new SqliteStore({ file });
  await setup.tags.createTag({ bizTag: TAG, step: 1_000, maxId: START_MAX_ID });

  const [a, b] = await Promise.all([startServer('range-a', file), startServer('range-b', file)]);
  const clients = Array.from({ length: CLIENTS }, (_, i) => {
    const handle = startWorker('leafClient.mts', `client-${i}`);
    handle.send({
      type: 'config',
      urls: [a.url, b.url],
      token: TOKEN,
      tag: TAG,
      quota: QUOTA,
      outFile: tmp.file(`ids-${i}.bin`),
      seed: 1_000 + i,
    });
    return handle;
  });
  await Promise.all(clients.map((c) => c.next('ready', 30_000)));
  for (const c of clients) c.send({ type: 'go' });

  // Kill A as soon as the first client is a quarter through: the others are mid-lease, some mid-request.
  await Promise.race(clients.map((c) => c.next('progress', 60_000)));
  await stopChild(a.child, 0, { signal: 'SIGKILL' });

  const done = await Promise.all(clients.map((c) => c.next<Done>('done', 90_000)));
  for (const d of done) expect(d.issued).toBe(QUOTA);

  // Failover was exercised: A answered before the kill, then cost failed requests; B served every client.
  const sum = (url: string, key: 'ok' | 'failed') => done.reduce((n, d) => n + (d.requests[url]?.[key] ?? 0), 0);
  expect(sum(a.url, 'ok')).toBeGreaterThan(0);
  expect(sum(a.url, 'failed')).toBeGreaterThan(0);
  for (const d of done) expect(d.requests[b.url]?.ok ?? 0).toBeGreaterThan(0);

  // No ID twice, across every client; all inside what leaf_alloc handed out.
  const all = sortedIdFiles(
    done.map((_, i) => tmp.file(`ids-${i}.bin`)),
    QUOTA,
  );
  expect(repeatsInSorted(all)).toBe(0);
  const row = await setup.tags.getTag(TAG);
  expect(all[0]).toBeGreaterThan(BigInt(START_MAX_ID));
  expect(all[all.length - 1]).toBeLessThanOrEqual(BigInt(row?.maxId ?? 0));
  await setup.close();
  console.log(
    `[client-it] ${CLIENTS} clients × ${QUOTA.toLocaleString('en-US')} IDs, ms ${done.map((d) => d.ms).join('/')}, ` +
      `requests A ok ${sum(a.url, 'ok')} failed ${sum(a.url, 'failed')}, B ok ${sum(b.url, 'ok')} failed ${sum(b.url, 'failed')}`,
  );
});
