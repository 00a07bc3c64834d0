/** A strict tag's request relayed to its owner: keep-alive connections, a bounded wait, the answer as it came. */
import http from 'node:http';
import { LeafError } from '../errors';

export interface Relayed {
  status: number;
  contentType: string;
  body: string;
}

/** Sends GET `path` to the node at `address` (host:port); rejects with `owner_unavailable` when it cannot answer. */
export type Forward = (address: string, path: string, authorization: string | null | undefined) => Promise<Relayed>;

/** At most this much of an owner's answer is read: a batch of 10,000 wide IDs is well below it. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

export function httpForward(timeoutMs: number): { forward: Forward; close(): void } {
  // One pool per process: the owner is one address, so its connections are reused across requests.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: timeoutMs });
  const forward: Forward = (address, path, authorization) =>
    new Promise<Relayed>((resolve, reject) => {
      const colon = address.lastIndexOf(':');
      const headers: Record<string, string> = {};
      if (authorization) headers.authorization = authorization;
      const req = http.request(
        { agent, host: address.slice(0, colon), port: Number(address.slice(colon + 1)), path, method: 'GET', headers },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) req.destroy(new Error('answer too large'));
            else chunks.push(chunk);
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 502,
              contentType: String(res.headers['content-type'] ?? 'application/json; charset=utf-8'),
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', (e) => reject(unreachable(address, e)));
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (e) => reject(unreachable(address, e)));
      req.end();
    });
  return { forward, close: () => agent.destroy() };
}

function unreachable(address: string, cause: unknown): LeafError {
  return new LeafError('owner_unavailable', `The owner of this strict tag (${address}) did not answer; try again.`, {
    cause,
    retryAfterSeconds: 1,
  });
}
