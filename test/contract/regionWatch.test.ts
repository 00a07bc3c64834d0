/**
 * A node whose database's region record is rewritten under it (by hand: `npm run regions -- change` refuses while a
 * node is registered) stops within its check interval (10 s) with exit 78 and one line naming both numberings,
 * rather than go on issuing IDs of a numbering the database no longer has.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { SqliteStore } from '../../lib/store/sqlite';
import { type NodeServer, startNodeServer } from '../../tools/harness';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-contract-region-watch-'));
let node: NodeServer | null = null;
afterAll(async () => {
  await node?.stop(1_000);
  fs.rmSync(dir, { recursive: true, force: true });
});

it('a node stops, exit 78 naming both, when its region record is rewritten while it runs', async () => {
  const file = path.join(dir, 'leaf.db');
  let out = '';
  node = await startNodeServer({
    env: { ...process.env, NODE_ENV: 'production', LEAF_SQLITE_FILE: file, DATABASE_URL: '', LEAF_LOG_LEVEL: 'warn' },
    timeoutMs: 30_000,
    onOutput: (text) => (out += text),
  });
  const exited = new Promise<number | string>((resolve) =>
    node!.child.once('exit', (code, signal) => resolve(code ?? String(signal))),
  );
  const store = new SqliteStore({ file });
  try {
    await store.regionChange.applyRegionChange(
      { record: { region: 1, regions: 2, database: 'rewritten' }, tags: new Map(), periods: new Map() },
      'by hand',
      [],
    );
  } finally {
    await store.close();
  }
  expect(await exited).toBe(78);
  expect(out).toMatch(
    /leaf-ts: stopping: This node is one region \(regions off\) .* but its database serves region 1 of 2/,
  );
  node = null;
}, 60_000);
