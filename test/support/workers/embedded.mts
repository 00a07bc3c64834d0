/**
 * One service process using leaf-ts/embedded (lib/embedded) straight on the database: issues `quota` IDs of `tag`
 * by a mix of leaf.nextId, a tag handle's next() and leaf.take, and writes them to `outFile` as raw BigUint64
 * (native byte order). Then {type:'done', issued, ms}.
 *
 * Protocol: parent sends {type:'config', databaseUrl, tag, quota, outFile, seed}; worker replies {type:'ready'};
 * parent sends {type:'go'}.
 */
import fs from 'node:fs';
import { createLeaf } from '../../../lib/embedded';
import { rng } from '../../../tools/harness/rng';
import { fail, finish, nextMessage, send, type Message } from './ipc.mts';

interface Config extends Message {
  databaseUrl: string;
  tag: string;
  quota: number;
  outFile: string;
  seed: number;
}

async function main(): Promise<void> {
  const { databaseUrl, tag, quota, outFile, seed } = await nextMessage<Config>('config');
  const leaf = await createLeaf({ databaseUrl });
  const handle = leaf.tag(tag);
  const random = rng(seed);
  const ids = new BigUint64Array(quota);
  await send({ type: 'ready' });
  await nextMessage('go');
  const started = Date.now();
  let n = 0;
  while (n < quota) {
    const pick = random();
    if (pick < 0.1) {
      const batch = Math.min(quota - n, 1 + Math.floor(random() * 500));
      const taken = leaf.take(tag, batch);
      for (const id of Array.isArray(taken) ? taken : await taken) ids[n++] = id;
    } else {
      // A slice of single IDs, then a turn of the event loop so segment loads land beside the other processes'.
      const end = Math.min(quota, n + 2_000);
      while (n < end) {
        const id = pick < 0.55 ? leaf.nextId(tag) : handle.next();
        ids[n++] = typeof id === 'bigint' ? id : await id;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const ms = Date.now() - started;
  await leaf.close();
  fs.writeFileSync(outFile, new Uint8Array(ids.buffer));
  await finish({ type: 'done', issued: n, ms });
}

main().catch(fail);
