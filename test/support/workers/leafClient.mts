/**
 * One service process using LeafClient (lib/client) against leaf-ts nodes: issues `quota` IDs of `tag` by a mix
 * of client.nextId, a tag handle's next() and client.take, and writes them to `outFile` as raw BigUint64 (native
 * byte order). Reports {type:'progress'} once at a quarter of its quota without pausing, then {type:'done', …}.
 * The fetch it hands the client is the real one, wrapped only to count requests and failures per server.
 *
 * Protocol: parent sends {type:'config', urls, token, tag, quota, outFile, seed, maxLease?, leaseTargetMs?}; worker
 * replies {type:'ready'}; parent sends {type:'go'}.
 */
import { LeafClient, type FetchLike } from '../../../lib/client';
import { fail, finish, nextMessage, send, type Message } from './ipc.mts';
import { drawMixed, writeIds } from './mixedDraw.mts';

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
  const {
    urls,
    token,
    tag,
    quota,
    outFile,
    seed,
    maxLease = 20_000,
    leaseTargetMs = 20,
  } = await nextMessage<Config>('config');
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
  await send({ type: 'ready' });
  await nextMessage('go');
  let reported = false;
  const { ids, issued, ms } = await drawMixed(client, tag, quota, seed, async (n) => {
    if (!reported && n >= quota / 4) {
      reported = true;
      await send({ type: 'progress', issued: n });
    }
  });
  client.close();
  writeIds(outFile, ids);
  await finish({ type: 'done', issued, ms, requests });
}

main().catch(fail);
