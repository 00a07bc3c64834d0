/**
 * Opaque IDs across a fleet: three servers on one database (one killed with SIGKILL and started again midway) and a
 * @leaf-ts/client hand out IDs of one opaque tag at once, singles and batches. Every ID is distinct, and every one
 * decodes under the key to a distinct sequence number the database claimed: the permutation is a bijection, so the
 * uniqueness of the sequence is the uniqueness of the IDs. 400,000 IDs under npm test; 10,000,000 at full scale.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LeafClient } from '../../lib/client';
import { opaqueKeyFromText } from '../../lib/opaque/key';
import { SqliteStore } from '../../lib/store/sqlite';
import { takeIdStrings } from '../support/clientIds';
import { scaled } from '../support/scale';
import { type ServerProcess, startServer } from '../support/serverProcess';

const SECRET = 'opaque-fleet-soak-key-0123456789abcdef-xyz';
const key = opaqueKeyFromText(SECRET);
const TOTAL = scaled(400_000, 10_000_000);
const BATCH = 10_000;

describe('opaque IDs across three nodes and a client', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-opaque-fleet-'));
  const file = path.join(dir, 'leaf.db');
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`${TOTAL.toLocaleString('en-US')} IDs, none twice, each the permutation of a distinct claimed sequence number`, async () => {
    const store = new SqliteStore({ file });
    await store.tags.createTag({
      bizTag: 'orders',
      step: 1_000,
      encoding: { encoding: 'opaque', keyId: key.id, heldKeyIds: [key.id] },
    });
    await store.close();
    const env = (n: number) => ({ LEAF_SQLITE_FILE: file, LEAF_OPAQUE_KEY: SECRET, LEAF_NODE_ID: `opaque-${n}` });
    for (let n = 0; n < 3; n++) servers.push(await startServer(env(n)));

    const ids = new BigUint64Array(TOTAL);
    let filled = 0;
    const add = (list: ReadonlyArray<bigint | string>) => {
      const room = Math.min(list.length, TOTAL - filled);
      for (let k = 0; k < room; k++) ids[filled++] = BigInt(list[k] as bigint | string);
    };
    const done = () => filled >= TOTAL;
    // A request to node 1 while it is down fails after the client's bound; the loop then asks the node's new address.
    const take = async (n: number, query: string) => {
      for (;;) {
        const server = servers[n] as ServerProcess;
        try {
          return await takeIdStrings(`${server.url}/api/id/segment/orders${query}`, { retryForMs: 5_000 });
        } catch (error) {
          if (servers[n] === server && !restarting) throw error;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    const nodeLoop = async (n: number, singles: number) => {
      for (let i = 0; i < singles && !done(); i++) add(await take(n, ''));
      while (!done()) add(await take(n, `?count=${BATCH}`));
    };
    const client = new LeafClient({ urls: servers.map((s) => s.url) });
    const clientLoop = async () => {
      for (let i = 0; i < 20_000 && !done(); i++) add([await client.nextId('orders')]);
      while (!done()) add(await client.take('orders', BATCH));
    };
    // Node 1 is killed (no goodbye, no give-back) once a third is out, and started again on the same database.
    let restarting = false;
    const restart = async () => {
      while (filled < TOTAL / 3) await new Promise((r) => setTimeout(r, 50));
      restarting = true;
      const old = servers[1] as ServerProcess;
      old.child.kill('SIGKILL');
      await new Promise((r) => old.child.once('exit', r));
      servers[1] = await startServer(env(1));
      restarting = false;
    };
    await Promise.all([nodeLoop(0, 2_000), nodeLoop(1, 2_000), nodeLoop(2, 2_000), clientLoop(), restart()]);
    await client.close();

    // No ID twice.
    const sorted = BigUint64Array.from(ids).sort();
    let repeats = 0;
    for (let k = 1; k < sorted.length; k++) if (sorted[k] === sorted[k - 1]) repeats++;
    expect(repeats).toBe(0);

    // Each decodes to a sequence number at or below the tag's max_id, and no two to the same one.
    const cipher = key.cipher(63, 'orders');
    const seq = new BigUint64Array(TOTAL);
    for (let from = 0; from < TOTAL; from += 100_000) {
      const part = Array.from(ids.subarray(from, Math.min(TOTAL, from + 100_000)));
      seq.set(cipher.decryptMany(part), from);
    }
    const check = new SqliteStore({ file });
    const maxId = BigInt((await check.tags.getTag('orders'))!.maxId);
    await check.close();
    const order = seq.sort();
    let seqRepeats = 0;
    for (let k = 1; k < order.length; k++) if (order[k] === order[k - 1]) seqRepeats++;
    expect(seqRepeats).toBe(0);
    expect((order[0] as bigint) >= 1n && (order[order.length - 1] as bigint) <= maxId).toBe(true);
    // Nothing near the sequence: the IDs are spread over the 63-bit space.
    expect(sorted[0]! > maxId).toBe(true);
    console.log(
      `opaque fleet: ${TOTAL} IDs from 3 nodes (one killed and restarted) and a client, 0 repeats; sequence numbers ${order[0]}..${order[order.length - 1]} of max_id ${maxId}`,
    );
  }, 600_000);
});
