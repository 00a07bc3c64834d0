/**
 * Two regions that share no database, with real server processes (production build): region 0 on MariaDB, region 1
 * on PostgreSQL, two nodes each, every node leasing snowflake worker ids from the same set (5-6) so equal worker ids
 * run in both regions. Region 0's database first served with regions off; it is turned regional by the runbook
 * (docs/operations.md#regions) and region 1 is seeded from it. Then every kind of ID — segment single and batch,
 * range leases through @leaf-ts/client, formatted, snowflake — from all four nodes: no ID twice in the union, each
 * region's IDs carry its own remainder (segment, formatted) or region bits (snowflake), every ID above those issued
 * before regions, and each node's segment IDs increasing. A node started with the wrong region for its database
 * exits 78 naming both.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeafClient } from '../../lib/client';
import { SnowflakeLayout } from '../../lib/snowflake/layout';
import { type NodeServer, cleanEnv, launchServer, startNodeServer, stopChild } from '../../tools/harness';
import { takeIdStrings } from '../support/clientIds';
import { type RawStore, rawStoreOpener } from '../support/rawStores';

const TOKEN = 'regions-admin-token-0123';
const LAYOUT = SnowflakeLayout.LEAF.forRegions(2) as SnowflakeLayout; // 1 region bit from the worker's 10
const EPOCH_MS = Date.UTC(2026, 0, 1);

const openStore = rawStoreOpener('leaf-it-regions-');
const started: ChildProcess[] = [];
let region0: RawStore;
let region1: RawStore;

beforeAll(async () => {
  region0 = await openStore('mysql');
  region1 = await openStore('postgres');
}, 120_000);
afterAll(async () => {
  await Promise.all(started.map((c) => stopChild(c, 0, { signal: 'SIGKILL' })));
});

function envFor(url: string, nodeId: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...cleanEnv(),
    NODE_ENV: 'production',
    DATABASE_URL: url,
    LEAF_ADMIN_TOKEN: TOKEN,
    LEAF_NODE_ID: nodeId,
    LEAF_WORKER_IDS: '5-6',
    LEAF_LOG_LEVEL: 'warn',
    ...extra,
  } as NodeJS.ProcessEnv;
}

async function node(url: string, nodeId: string, extra: Record<string, string> = {}): Promise<NodeServer> {
  const server = await startNodeServer({ env: envFor(url, nodeId, extra), timeoutMs: 90_000 });
  started.push(server.child);
  return server;
}

async function api(server: NodeServer, method: string, path: string, body?: unknown): Promise<unknown> {
  const r = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', origin: server.url },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return JSON.parse(text);
}

const idsOf = (server: NodeServer, path: string) => takeIdStrings(`${server.url}${path}`);

/** Every ID taken, with where it came from. */
const taken: Array<{ id: string; kind: string; region: number; node: string }> = [];

describe('two regions, two databases', () => {
  let before: { segment: bigint; formatted: bigint; snowflake: bigint };
  let nodes: Array<{ server: NodeServer; region: number; name: string }>;

  it('region 0 served with regions off first; the runbook turns it regional and seeds region 1 from it', async () => {
    const solo = await node(region0.url, 'solo');
    await api(solo, 'POST', '/api/admin/tags', { bizTag: 'orders', step: 100 });
    await api(solo, 'POST', '/api/admin/formats', {
      bizTag: 'inv',
      pattern: 'INV-{seq:9}',
      resetPeriod: 'never',
      timeZone: 'UTC',
      step: 50,
    });
    const seg = await idsOf(solo, '/api/id/segment/orders?count=250');
    const fmt = await idsOf(solo, '/api/id/formatted/inv?count=120');
    const sf = await idsOf(solo, '/api/id/snowflake?count=100');
    before = {
      segment: BigInt(seg.at(-1)!),
      formatted: BigInt(fmt.at(-1)!.slice(4)),
      snowflake: BigInt(sf.at(-1)!),
    };
    for (const id of seg) taken.push({ id, kind: 'segment', region: -1, node: 'solo' });
    for (const id of fmt) taken.push({ id, kind: 'formatted', region: -1, node: 'solo' });
    for (const id of sf) taken.push({ id, kind: 'snowflake', region: -1, node: 'solo' });
    await solo.stop(10_000);

    // The runbook: every node of the region stopped; forget its one-region and layout rows; a snowflake floor.
    await region0.exec("DELETE FROM leaf_setting WHERE name IN ('region', 'snowflake')");
    const floor = before.snowflake.toString();
    const regional = (r: number) => ({ LEAF_REGIONS: '2', LEAF_REGION: String(r), LEAF_SNOWFLAKE_MIN_ID: floor });
    const a0 = await node(region0.url, 'eu-a', regional(0));
    // Region 1 seeded from region 0: each tag created at the max_id region 0 has now.
    const a1 = await node(region1.url, 'us-a', regional(1));
    const tags = (await api(a0, 'GET', '/api/admin/tags')) as { tags: Array<{ bizTag: string; maxId: string }> };
    const orders = tags.tags.find((t) => t.bizTag === 'orders')!;
    await api(a1, 'POST', '/api/admin/tags', { bizTag: 'orders', step: 100, maxId: orders.maxId });
    const inv = (await api(a0, 'GET', '/api/admin/formats/inv')) as { format: { currentCount: number } };
    await api(a1, 'POST', '/api/admin/formats', {
      bizTag: 'inv',
      pattern: 'INV-{seq:9}',
      resetPeriod: 'never',
      timeZone: 'UTC',
      step: 50,
    });
    // A formatted tag's period row is copied by SQL (the runbook's step): its sequence goes on above region 0's.
    await region1.exec(
      "INSERT INTO leaf_format_period (biz_tag, period_key, max_id, step, update_time) VALUES ('inv', '', ?, 50, 0)",
      [inv.format.currentCount],
    );
    const b0 = await node(region0.url, 'eu-b', regional(0));
    const b1 = await node(region1.url, 'us-b', regional(1));
    nodes = [
      { server: a0, region: 0, name: 'eu-a' },
      { server: b0, region: 0, name: 'eu-b' },
      { server: a1, region: 1, name: 'us-a' },
      { server: b1, region: 1, name: 'us-b' },
    ];
    for (const n of nodes) {
      const health = (await api(n.server, 'GET', '/api/health')) as {
        region: { region: number; regions: number };
        snowflake: { workerId: number; region: number };
      };
      expect(health.region).toMatchObject({ region: n.region, regions: 2 });
      expect(health.snowflake.region).toBe(n.region);
      expect([5, 6]).toContain(health.snowflake.workerId);
    }
  }, 240_000);

  it('every kind of ID from all four nodes: none twice, each region its own, all above the IDs before', async () => {
    for (let round = 0; round < 3; round++) {
      for (const n of nodes) {
        const push = (kind: string, ids: string[]) => {
          for (const id of ids) taken.push({ id, kind, region: n.region, node: n.name });
        };
        const single = await idsOf(n.server, '/api/id/segment/orders');
        const batch = await idsOf(n.server, '/api/id/segment/orders?count=300');
        push('segment', [...single, ...batch]);
        // Each node's segment IDs increase, a region's remainder apart.
        const mine = [...single, ...batch].map(BigInt);
        for (let i = 1; i < mine.length; i++) expect(mine[i]! > mine[i - 1]!, n.name).toBe(true);
        push('formatted', await idsOf(n.server, '/api/id/formatted/inv?count=40'));
        push('snowflake', await idsOf(n.server, '/api/id/snowflake?count=200'));
        // Range leases through @leaf-ts/client: the lease's stride carried to every ID it hands out.
        const client = new LeafClient({ urls: [n.server.url], token: TOKEN, minLease: 150, maxLease: 150 });
        try {
          const leased = await client.take('orders', 400);
          push('leased', leased.map(String));
        } finally {
          client.close();
        }
      }
    }
    const regional = taken.filter((t) => t.region >= 0);
    // No ID twice in the union, kind by kind and across the segment-family kinds that share a number line.
    const segmentFamily = taken.filter((t) => t.kind === 'segment' || t.kind === 'leased').map((t) => t.id);
    expect(new Set(segmentFamily).size, 'segment and leased IDs').toBe(segmentFamily.length);
    for (const kind of ['formatted', 'snowflake']) {
      const ids = taken.filter((t) => t.kind === kind).map((t) => t.id);
      expect(new Set(ids).size, kind).toBe(ids.length);
    }
    for (const t of regional) {
      if (t.kind === 'segment' || t.kind === 'leased') {
        expect(BigInt(t.id) % 2n, `${t.kind} ${t.id} from ${t.node}`).toBe(BigInt(t.region));
        expect(BigInt(t.id) > before.segment, `${t.id} above the IDs before regions`).toBe(true);
      } else if (t.kind === 'formatted') {
        const seq = BigInt(t.id.slice(4));
        expect(seq % 2n, `${t.id} from ${t.node}`).toBe(BigInt(t.region));
        expect(seq > before.formatted).toBe(true);
      } else {
        const d = LAYOUT.decompose(BigInt(t.id), EPOCH_MS);
        expect(d.region, `${t.id} from ${t.node}`).toBe(t.region);
        expect([5, 6]).toContain(d.workerId);
        expect(BigInt(t.id) > before.snowflake).toBe(true);
      }
    }
    // Equal worker ids ran in both regions: the region bits are what kept them apart.
    const workers = (r: number) =>
      new Set(
        regional
          .filter((t) => t.kind === 'snowflake' && t.region === r)
          .map((t) => LAYOUT.decompose(BigInt(t.id), EPOCH_MS).workerId),
      );
    expect([...workers(0)].some((w) => workers(1).has(w))).toBe(true);
  }, 240_000);

  it('a node started with the wrong region for its database exits 78 naming both', async () => {
    const lost = await launchServer(envFor(region1.url, 'lost', { LEAF_REGIONS: '2', LEAF_REGION: '0' }));
    started.push(lost.child);
    const outcome = await lost.outcome;
    const out = lost.out();
    expect(outcome, out).toBe(78);
    expect(out).toMatch(
      /^leaf-ts: cannot start: This node is region 0 of 2 \(LEAF_REGION, LEAF_REGIONS\), but its database serves region 1 of 2, recorded by us-a at /m,
    );
  }, 120_000);
});
