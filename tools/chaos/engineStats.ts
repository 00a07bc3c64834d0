import http from 'node:http';
import { ADMIN_TOKEN, TAG } from './config';

export interface EngineStats {
  /** IDs held: current segment's remaining + the pending segment; -1 when the admin API did not answer. */
  buffered: number;
  /** Requests that found both segments empty and had to wait for a load (this process's lifetime). */
  waits: number;
  failedRequests: number;
}

/** The engine's state for the tag on the node at `port`, from the admin API (GET /api/admin/tags/{tag}). */
export function engineStats(port: number, timeoutMs = 6_000): Promise<EngineStats> {
  const unknown: EngineStats = { buffered: -1, waits: 0, failedRequests: 0 };
  return new Promise((resolve) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port,
        path: `/api/admin/tags/${TAG}`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          try {
            type View = {
              current: { remaining: number } | null;
              pending: { step: number } | null;
              waits: number;
              failedRequests: number;
            } | null;
            const e = (JSON.parse(body) as { tag: { engine: View } }).tag.engine;
            resolve({
              buffered: (e?.current?.remaining ?? 0) + (e?.pending?.step ?? 0),
              waits: e?.waits ?? 0,
              failedRequests: e?.failedRequests ?? 0,
            });
          } catch {
            resolve(unknown);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(unknown));
  });
}
