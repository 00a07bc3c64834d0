/**
 * leaf-ts/embedded beside a real server on one leaf_alloc, per dialect: 3 service processes with createLeaf (straight
 * on the database) and a server.ts process answering single IDs and batches over HTTP draw ~1,000,000 IDs of one tag
 * together. Checked: no ID twice across all of them, every ID inside what the table handed out. On MariaDB the fleet
 * runs Leaf's claim semantics (leaf_semantics, set by the server at start), which the embedded processes honour.
 */
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNodeServer, stopAllChildren } from '../../tools/harness';
import { type TempDir, tempDir, within } from '../support/context';
import { serverDialects } from '../support/dialects';
import { killAllWorkers, startWorker } from '../support/procs';
import { takeIds } from '../support/clientIds';

const EMBEDDED = 3;
const QUOTA = 300_000;
const SERVER_IDS = 100_000;
const TAG = 'embedded-it';
const START_MAX_ID = 5_000;

const dialects = serverDialects('shared.db');

let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir('leaf-it-embedded-');
});
afterEach(async () => {
  await killAllWorkers();
  await stopAllChildren(0);
});
afterAll(async () => {
  await dialects.drop();
  tmp?.remove();
});

describe.each(dialects.all)('leaf-ts/embedded beside a server on $name', (dialect) => {
  it(`${EMBEDDED} embedded processes × ${QUOTA.toLocaleString('en-US')} IDs and a server's ${SERVER_IDS.toLocaleString('en-US')}: no ID twice`, async (ctx) => {
    if (dialect.skip?.()) ctx.skip();
    const { store, databaseUrl, serverEnv, close } = await dialect.open(tmp);
    try {
      await store.tags.createTag({ bizTag: TAG, step: 1_000, maxId: START_MAX_ID });
      const server = await startNodeServer({
        env: serverEnv({ LEAF_NODE_ID: `embedded-it-${dialect.semantics}` }),
        timeoutMs: 60_000,
      });
      const workers = Array.from({ length: EMBEDDED }, (_, i) => {
        const worker = startWorker('embedded.mts', `embedded-${dialect.semantics}-${i}`);
        worker.send({
          type: 'config',
          databaseUrl,
          tag: TAG,
          quota: QUOTA,
          outFile: tmp.file(`${dialect.semantics}-${i}.bin`),
          seed: 7_000 + i,
        });
        return worker;
      });
      await Promise.all(workers.map((w) => w.next('ready', 60_000)));
      for (const w of workers) w.send({ type: 'go' });

      // Meanwhile the server: single IDs and batches of 1,000 over HTTP, from the same row.
      const fromServer: bigint[] = [];
      await within(
        120_000,
        (async () => {
          while (fromServer.length < SERVER_IDS) {
            if (fromServer.length % 10 === 0) {
              fromServer.push(...(await takeIds(`${server.url}/api/id/segment/${TAG}?count=1000`)));
            } else {
              fromServer.push(...(await takeIds(`${server.url}/api/id/segment/${TAG}`)));
            }
          }
        })(),
        "the server's share",
      );
      const done = await Promise.all(
        workers.map((w) => w.next<{ type: 'done'; issued: number; ms: number }>('done', 120_000)),
      );
      for (const d of done) expect(d.issued).toBe(QUOTA);

      const all = new BigUint64Array(EMBEDDED * QUOTA + fromServer.length);
      for (let i = 0; i < EMBEDDED; i++) {
        const bytes = fs.readFileSync(tmp.file(`${dialect.semantics}-${i}.bin`));
        expect(bytes.byteLength).toBe(QUOTA * 8);
        all.set(new BigUint64Array(new Uint8Array(bytes).buffer), i * QUOTA);
      }
      all.set(fromServer, EMBEDDED * QUOTA);
      all.sort();
      let duplicates = 0;
      for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) duplicates++;
      expect(duplicates).toBe(0);
      const row = await store.tags.getTag(TAG);
      expect(all[0]).toBeGreaterThanOrEqual(BigInt(START_MAX_ID));
      expect(all[all.length - 1]).toBeLessThanOrEqual(BigInt(row?.maxId ?? 0));
      console.log(
        `[embedded-it] ${dialect.name}: ${all.length.toLocaleString('en-US')} IDs, embedded ms ${done.map((d) => d.ms).join('/')}, no duplicate`,
      );
    } finally {
      await close();
    }
  });
});
