/**
 * The scale run's fleet: N leaf-ts nodes of one app directory on one shared SQLite file, `tags` tags written
 * straight into leaf_alloc (one transaction, seconds instead of 10,000 admin calls), and IDs drawn for every
 * tag on every node so each node holds a buffer of each.
 */
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type NodeServer, startNodeServer } from '../harness';

export const SCALE_TOKEN = 'scale-run-admin-token-0123456789';

/** Nodes `first` … `last - 1` of the fleet (node i is LEAF_NODE_ID scale-i). */
export async function startNodes(
  appDir: string,
  dir: string,
  first: number,
  last: number,
  log: (line: string) => void,
): Promise<NodeServer[]> {
  const env = {
    ...process.env,
    NODE_ENV: 'production' as const,
    DATABASE_URL: '',
    LEAF_SQLITE_FILE: path.join(dir, 'leaf.db'),
    LEAF_DATA_DIR: dir,
    LEAF_ADMIN_TOKEN: SCALE_TOKEN,
    LEAF_LOG_LEVEL: 'error',
  };
  const servers: NodeServer[] = [];
  // One after the other: the first creates the schema, the others find it.
  for (let i = first; i < last; i++) {
    const server = await startNodeServer({
      env: { ...env, LEAF_NODE_ID: `scale-${i}` },
      cwd: appDir,
      timeoutMs: 60_000,
    });
    servers.push(server);
    log(`node ${i + 1} up on ${server.url}`);
  }
  return servers;
}

/** Tag names: `tag-00000` … */
export const tagName = (i: number) => `tag-${String(i).padStart(5, '0')}`;

export function seedTags(dbFile: string, count: number): void {
  const db = new Database(dbFile);
  db.pragma('busy_timeout = 10000');
  const insert = db.prepare(
    'INSERT OR IGNORE INTO leaf_alloc (biz_tag, max_id, step, description) VALUES (?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(tagName(i), 1, 1000, `Scale test tag ${i} of ${count}`);
  })();
  db.close();
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** GET on 127.0.0.1 with the admin token; status, body bytes and ms. */
export function get(
  port: number,
  urlPath: string,
  token = SCALE_TOKEN,
): Promise<{ status: number; body: Buffer; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: urlPath, agent, headers: { authorization: `Bearer ${token}` }, timeout: 30_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - started }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${urlPath} timed out`)));
    req.on('error', reject);
  });
}

/** `perTag` IDs of every tag from every node, `concurrency` requests at a time per node. */
export async function drawEverywhere(
  servers: NodeServer[],
  tags: number,
  perTag: number,
  concurrency = 8,
): Promise<number> {
  let failures = 0;
  await Promise.all(
    servers.map(async (server) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < tags) {
            const r = await get(server.port, `/api/id/segment/${tagName(next++)}?count=${perTag}`);
            if (r.status !== 200) failures++;
          }
        }),
      );
    }),
  );
  return failures;
}

/** A light steady load on the first `hot` tags, spread over the nodes, until stopped: the busy tags have a rate. */
export function trickle(servers: NodeServer[], hot: number): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    let i = 0;
    while (running) {
      await Promise.all(
        servers.map((s, n) => get(s.port, `/api/id/segment/${tagName((i + n) % hot)}?count=${1 + ((i + n) % hot)}`)),
      );
      i++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}
