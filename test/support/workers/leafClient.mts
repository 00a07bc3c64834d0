/**
 * One service process using LeafClient (lib/client) against leaf-ts nodes: issues `quota` IDs of `tag` by a mix
 * of client.nextId, a tag handle's next() and client.take, and writes them to `outFile` as raw BigUint64 (native
 * byte order). Reports {type:'progress'} once at a quarter of its quota without pausing, then {type:'done', …}.
 * The fetch it hands the client is the real one, wrapped only to count requests and failures per server.
 *
 * Protocol: parent sends {type:'config', urls, token, tag, quota, outFile, seed, maxLease?, leaseTargetMs?}; worker
 * replies {type:'ready'}; parent sends {type:'go'}.
 */
import fs from 'node:fs';
import { LeafClient, type FetchLike } from '../../../lib/client';
import { rng } from '../../../tools/harness/rng';
import { fail, finish, nextMessage, send, type Message } from './ipc.mts';

interface Config extends Message {
  urls: string[];
  token: string;
  tag: string;
  quota: number;
  outFile: string;
  seed: number;
  /** Lease sizing; by default small leases that last little (many lease requests in a short run). */
  maxLease?: number;
  leaseTargetMs?: number;
}

async function main(): Promise<void> {
  const { urls, token, tag, quota, outFile, seed, maxLease = 20_000, leaseTargetMs = 20 } = await nextMessage<Config>('config');
  const requests: Record<string, { ok: number; failed: number }> = {};
  const countingFetch: FetchLike = async (url, init) => {
    const server = new URL(url).origin;
    const seen = (requests[server] ??= { ok: 0, failed: 0 });
    try {
      const answer = await fetch(url, init);
      if (answer.status === 200) seen.ok++;
      else seen.failed++;
      return answer;
    } catch (error) {
      seen.failed++;
      throw error;
    }
  };
  // Small leases that last little, so a run of a second makes many lease requests and spans the kill.
  const client = new LeafClient({ urls, token, fetch: countingFetch, timeoutMs: 2_000, maxLease, leaseTargetMs });
  const handle = client.tag(tag);
  const random = rng(seed);
  const ids = new BigUint64Array(quota);
  await send({ type: 'ready' });
  await nextMessage('go');
  const started = Date.now();
  let n = 0;
  let reported = false;
  while (n < quota) {
    const pick = random();
    if (pick < 0.1) {
      const batch = Math.min(quota - n, 1 + Math.floor(random() * 500));
      const taken = client.take(tag, batch);
      for (const id of Array.isArray(taken) ? taken : await taken) ids[n++] = id;
    } else {
      // A slice of single IDs, then a turn of the event loop so leases land and the parent can act.
      const end = Math.min(quota, n + 2_000);
      while (n < end) {
        const id = pick < 0.55 ? client.nextId(tag) : handle.next();
        ids[n++] = typeof id === 'bigint' ? id : await id;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (!reported && n >= quota / 4) {
      reported = true;
      await send({ type: 'progress', issued: n });
    }
  }
  const ms = Date.now() - started;
  client.close();
  fs.writeFileSync(outFile, new Uint8Array(ids.buffer));
  await finish({ type: 'done', issued: n, ms, requests });
}

main().catch(fail);
