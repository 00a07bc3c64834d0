/** leaf-ts's own DB writes during a row: segment loads scraped from /api/metrics across every cluster worker. */
import http from 'node:http';
import { ADMIN_TOKEN, TAG, sleep } from './config';

/** What these reads need of a bench server (servers.ts's Server has it). */
type ScrapedServer = { name: string; base: string; workers: number };

/** GET on a fresh connection (no keep-alive), so node:cluster hands each call to the next worker. */
export function getFresh(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      url,
      { agent: false, headers: { ...headers, connection: 'close' }, timeout: 10_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout GET ${url}`)));
    req.on('error', reject);
  });
}

/**
 * leaf-ts's segment loads so far (each one UPDATE of leaf_alloc), summed over the server's processes: the
 * Prometheus counter leaf_segment_loads_total{biz_tag=…,outcome="ok"} of `tag`, scraped on fresh connections until
 * every cluster worker (told apart by its snowflake worker id and start time) has answered.
 */
export async function segmentLoads(server: ScrapedServer, tag: string = TAG): Promise<number> {
  const byWorker = new Map<string, number>();
  for (let attempt = 0; attempt < 40 && byWorker.size < server.workers; attempt++) {
    const { status, text } = await getFresh(`${server.base}/api/metrics`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    if (status !== 200) throw new Error(`${server.name}: GET /api/metrics answered ${status}: ${text.slice(0, 200)}`);
    const worker = `${/^leaf_snowflake_worker_id (\S+)$/m.exec(text)?.[1] ?? '?'}@${/^process_start_time_seconds (\S+)$/m.exec(text)?.[1] ?? '?'}`;
    let loads = 0;
    for (const [, labels, value] of text.matchAll(/^leaf_segment_loads_total\{([^}]*)\} (\S+)$/gm)) {
      if (labels === undefined || value === undefined) continue;
      if (labels.includes(`biz_tag="${tag}"`) && labels.includes('outcome="ok"')) loads += Number(value);
    }
    byWorker.set(worker, loads);
    if (byWorker.size < server.workers) await sleep(50);
  }
  if (byWorker.size < server.workers)
    throw new Error(`${server.name}: /api/metrics reached ${byWorker.size} of ${server.workers} workers`);
  return [...byWorker.values()].reduce((a, b) => a + b, 0);
}

/**
 * The segment loads of `tag` that started within [fromMs, toMs] (epoch ms), from the node's own load log
 * (GET /api/admin/tags/{tag}: history.loads, the last 200 loads, each timed by the engine around the store call,
 * whole ms): the direct measurement behind the histogram leaf_segment_load_duration_seconds. One process only.
 */
export async function loadDurations(
  server: ScrapedServer,
  fromMs: number,
  toMs: number,
  tag: string = TAG,
): Promise<{ durationsMs: number[]; failed: number; oldestMs: number }> {
  const { status, text } = await getFresh(`${server.base}/api/admin/tags/${tag}`, {
    authorization: `Bearer ${ADMIN_TOKEN}`,
  });
  if (status !== 200)
    throw new Error(`${server.name}: GET /api/admin/tags/${tag} answered ${status}: ${text.slice(0, 200)}`);
  const loads = (JSON.parse(text) as { history: { loads: Array<{ at: number; durationMs: number; ok: boolean }> } })
    .history.loads;
  const inWindow = loads.filter((l) => l.at >= fromMs && l.at <= toMs);
  return {
    durationsMs: inWindow.filter((l) => l.ok).map((l) => l.durationMs),
    failed: inWindow.filter((l) => !l.ok).length,
    oldestMs: loads[0]?.at ?? Infinity,
  };
}
