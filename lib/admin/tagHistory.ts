import type { LoadLog } from '../metrics/loadLog';
import type { RateTracker } from '../metrics/rateTracker';
import type { ReadPeerHistory } from './fleetHistory';
import type { NodeTagHistory } from './views';

/** The width of every rate bucket the console draws. */
export const RATE_BUCKET_MS = 5_000;

/** This node's own record of a tag: what its rate tracker sampled and its load log kept. */
export function ownTagHistory(
  self: { nodeId: string; instanceId: string; startedAt: number },
  parts: { rates: Pick<RateTracker, 'history'>; loadLog: Pick<LoadLog, 'loads'> },
  bizTag: string,
): NodeTagHistory {
  return {
    nodeId: self.nodeId,
    instanceId: self.instanceId,
    startedAt: self.startedAt,
    bucketMs: RATE_BUCKET_MS,
    rate: parts.rates.history(bizTag, RATE_BUCKET_MS),
    loads: parts.loadLog.loads(bizTag),
  };
}

/** Reads a peer's own record over HTTP (a failure's message is the reason the console shows) with the fleet's admin token, within `timeoutMs`. */
export function peerHistoryReader(adminToken: string, timeoutMs: number): ReadPeerHistory {
  return async (address, bizTag) => {
    let response: Response;
    try {
      response = await fetch(`http://${address}/api/admin/tags/${encodeURIComponent(bizTag)}/history`, {
        headers: { authorization: `Bearer ${adminToken}`, accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new Error(timedOut ? `did not answer within ${timeoutMs} ms` : `unreachable at ${address}`, {
        cause: error,
      });
    }
    if (response.status === 401)
      throw new Error('refused this node’s admin token (the fleet needs one LEAF_ADMIN_TOKEN)');
    if (!response.ok) throw new Error(`answered ${response.status}`);
    const body = (await response.json()) as Partial<NodeTagHistory>;
    if (!Array.isArray(body.rate) || !Array.isArray(body.loads) || typeof body.bucketMs !== 'number')
      throw new Error('answered a history this version cannot read');
    return body as NodeTagHistory;
  };
}
