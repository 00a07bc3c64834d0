/**
 * One service process using leaf-ts/embedded (lib/embedded) straight on the database: issues `quota` IDs of `tag`
 * by a mix of leaf.nextId, a tag handle's next() and leaf.take, and writes them to `outFile` as raw BigUint64
 * (native byte order). Then {type:'done', issued, ms}.
 *
 * Protocol: parent sends {type:'config', databaseUrl, tag, quota, outFile, seed}; worker replies {type:'ready'};
 * parent sends {type:'go'}.
 */
import { createLeaf } from '../../../lib/embedded';
import { fail, finish, nextMessage, send, type Message } from './ipc.mts';
import { drawMixed, writeIds } from './mixedDraw.mts';

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
  await send({ type: 'ready' });
  await nextMessage('go');
  const { ids, issued, ms } = await drawMixed(leaf, tag, quota, seed);
  await leaf.close();
  writeIds(outFile, ids);
  await finish({ type: 'done', issued, ms });
}

main().catch(fail);
