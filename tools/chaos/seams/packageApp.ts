/**
 * A service using one of the packages, as a user's would, for the seams run (tools/chaos/seams): a node:http server
 * whose `GET /take?tag=T&count=N` answers N IDs from `@leaf-ts/client` (leases from the region's nodes) or
 * `@leaf-ts/embedded` (straight on the region's database) — `{"tag","ids":[…]}`, or the package's error as JSON with
 * 503 for what a caller retries. `/api/health` answers 200 once the package is open (the harness waits on it).
 *
 * Environment: PORT; LEAF_SEAMS_PACKAGE client|embedded; LEAF_SEAMS_LIB (the lib/ folder to load the package from:
 * this checkout's, or an older one's for the run against an earlier commit); LEAF_SEAMS_URLS (comma-separated node
 * URLs, client) or DATABASE_URL (embedded); LEAF_SEAMS_POLL_MS (embedded's orderPollMs); LEAF_OPAQUE_KEY (embedded's
 * opaqueKey).
 */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

interface Package {
  nextId(tag: string): bigint | Promise<bigint>;
  take(tag: string, count: number): bigint[] | Promise<bigint[]>;
  close(): unknown;
}

/** Codes a caller retries: the servers' retryable ones, and the client's own for an unreachable fleet. */
const RETRYABLE = new Set([
  'store_unavailable',
  'segment_unavailable',
  'not_ready',
  'snowflake_unavailable',
  'closed',
  'owner_unavailable',
  'not_owner',
  'unavailable',
  'timeout',
  'network',
]);

async function open(): Promise<Package> {
  const lib = process.env.LEAF_SEAMS_LIB ?? path.resolve(__dirname, '..', '..', '..', 'lib');
  if (process.env.LEAF_SEAMS_PACKAGE === 'embedded') {
    const { createLeaf } = (await import(path.join(lib, 'embedded', 'index.ts'))) as {
      createLeaf(o: Record<string, unknown>): Promise<Package>;
    };
    const poll = process.env.LEAF_SEAMS_POLL_MS;
    const retired = process.env.LEAF_OPAQUE_RETIRED_KEYS_FILE; // after the run's key rotation (rotation.ts)
    const regions = Number(process.env.LEAF_REGIONS ?? '1');
    return createLeaf({
      databaseUrl: process.env.DATABASE_URL,
      name: process.env.LEAF_SEAMS_NAME,
      ...(regions > 1 ? { region: { region: Number(process.env.LEAF_REGION), regions } } : {}),
      ...(poll === undefined ? {} : { orderPollMs: Number(poll) }),
      ...(process.env.LEAF_OPAQUE_KEY === undefined ? {} : { opaqueKey: process.env.LEAF_OPAQUE_KEY }),
      ...(retired === undefined
        ? {}
        : { opaqueRetiredKeys: fs.readFileSync(retired, 'utf8').split('\n').filter(Boolean) }),
    });
  }
  const { LeafClient } = (await import(path.join(lib, 'client', 'index.ts'))) as {
    LeafClient: new (o: Record<string, unknown>) => Package;
  };
  return new LeafClient({
    urls: (process.env.LEAF_SEAMS_URLS ?? '').split(','),
    minLease: 20,
    maxLease: 400,
    leaseTargetMs: 2_000,
    timeoutMs: 1_500,
  });
}

async function main(): Promise<void> {
  const leaf = await open();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://app');
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/api/health') return answer(200, { ok: true });
    if (url.pathname !== '/take') return answer(404, { error: { code: 'route_not_found', message: url.pathname } });
    const tag = url.searchParams.get('tag') ?? '';
    const count = Number(url.searchParams.get('count') ?? '1');
    Promise.resolve()
      .then(() => (count === 1 ? Promise.resolve(leaf.nextId(tag)).then((id) => [id]) : leaf.take(tag, count)))
      .then(
        (ids) => answer(200, { tag, ids: ids.map(String) }),
        (error: { code?: string; message?: string }) => {
          const code = error.code ?? 'internal_error';
          answer(RETRYABLE.has(code) ? 503 : 409, { error: { code, message: error.message ?? String(error) } });
        },
      );
  });
  server.listen(Number(process.env.PORT), '127.0.0.1');
  const stop = () => {
    server.close();
    void Promise.resolve(leaf.close()).finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`package app: ${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
