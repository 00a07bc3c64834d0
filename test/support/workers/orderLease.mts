/**
 * One process racing others for a strict tag's owner lease on a shared database: `rounds` times it reads the row,
 * tries to take the lease after the epoch it saw, and on a win gives it up at once. Reports every epoch it won.
 *
 * Protocol: parent sends {type:'config', dialect, url?, file?, tag, rounds}; worker replies {type:'ready'}; parent
 * sends {type:'go'}; worker answers {type:'done', won: number[]}.
 */
import { randomUUID } from 'node:crypto';
import { fail, finish, nextMessage, send, type Message } from './ipc.mts';
import { type WorkerDialect, openWorkerStore } from './store.mts';

interface Config extends Message {
  dialect: WorkerDialect;
  url?: string;
  file?: string;
  tag: string;
  rounds: number;
}

async function main(): Promise<void> {
  const { dialect, url, file, tag, rounds } = await nextMessage<Config>('config');
  const store = await openWorkerStore(dialect, { url, file });
  const claim = { nodeId: process.env.LEAF_WORKER_NAME ?? 'w', instanceId: randomUUID(), address: '127.0.0.1:1' };
  const terms = { leaseMs: 60_000, marginMs: 0 };
  await send({ type: 'ready' });
  await nextMessage('go');
  const won: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const seen = (await store.order.readOrder()).rows.find((r) => r.bizTag === tag)?.epoch ?? 0;
    if (await store.order.acquireOwner(tag, claim, terms, seen)) {
      won.push(seen + 1);
      await store.order.releaseOwner(tag, claim.instanceId, seen + 1);
    }
  }
  await store.close();
  await finish({ type: 'done', won });
}

main().catch(fail);
