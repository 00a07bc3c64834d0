/**
 * `npm run chaos -- --regions [--size small|full] [--seed N] [--control]`: two regions that share no database —
 * region 0 on MariaDB, region 1 on PostgreSQL, two nodes each, all leasing snowflake worker ids from the same set so
 * equal worker ids run in both. Clients of each region take every kind of ID from its nodes — segment batches, range
 * leases, formatted and snowflake IDs — retrying a 503 or a refused connection as a client does (bounded). The faults: a node of each region SIGKILLed and started again,
 * then each region's database stopped and started. The summary line: duplicates over the union of both regions
 * (must be 0), IDs in the wrong region, and the other region's rate while one region's database was down, as a
 * share of its rate before (must stay at least MIN_RATE_SHARE). `--control` numbers both regions 0 — what must never
 * be done — and passes only if duplicates are found: the check has teeth.
 */
import { SnowflakeLayout } from '../../lib/snowflake/layout';
import { openStore } from '../../lib/store';
import type { LeafStore } from '../../lib/store/leafStore';
import { defaultMigrationsDir } from '../../lib/store/migrations';
import { storeUrlTarget } from '../../lib/store/target';
import {
  MariadbServer,
  type NodeServer,
  PostgresServer,
  ensureMariadb,
  ensurePostgres,
  rng,
  sleep,
  startNodeServer,
  stopAllChildren,
} from '../harness';

const TAG = 'chaos_regions';
const FORMAT_TAG = 'chaos_regions_fmt';
const KINDS = ['segment', 'lease', 'formatted', 'snowflake'] as const;
type Kind = (typeof KINDS)[number];
const PATHS: Record<Kind, string> = {
  segment: `/api/id/segment/${TAG}?count=20`,
  lease: `/api/id/segment/${TAG}/range?count=20`,
  formatted: `/api/id/formatted/${FORMAT_TAG}?count=20`,
  snowflake: '/api/id/snowflake?count=20',
};
const EPOCH_MS = Date.UTC(2026, 0, 1);
const LAYOUT = SnowflakeLayout.LEAF.forRegions(2) as SnowflakeLayout;
/** While one region's database is down, the other must keep at least this share of its rate before. */
const MIN_RATE_SHARE = 0.5;
const RETRY_BOUND_MS = 30_000;
const SIZES = {
  small: { clients: 3, outageMs: 6_000, budgetS: 150 },
  full: { clients: 6, outageMs: 15_000, budgetS: 300 },
};

export interface RegionsArgs {
  size: 'small' | 'full';
  seed: number;
  control: boolean;
}

interface Region {
  number: number;
  database: MariadbServer | PostgresServer;
  url: string;
  nodes: Array<{ name: string; server: NodeServer | null }>;
  /** When each answer of this region's clients arrived (ms, monotonic). */
  answeredAt: number[];
}

export async function runRegions({ size: sizeName, seed, control }: RegionsArgs): Promise<number> {
  const size = SIZES[sizeName];
  const t0 = performance.now();
  const say = (line: string) =>
    process.stdout.write(`[chaos ${((performance.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
  ensureMariadb(say);
  ensurePostgres(say);
  const hardStop = setTimeout(
    () => {
      process.stdout.write(`chaos: regions: hard time limit (${size.budgetS + 30}s) hit, aborting: FAIL\n`);
      process.exit(3);
    },
    (size.budgetS + 30) * 1000,
  );
  hardStop.unref();
  const random = rng(seed);
  const violations: string[] = [];
  const regions: Region[] = [];
  const stores: LeafStore[] = [];
  const ids = new Map<string, { kind: Kind; region: number }>();
  let duplicates = 0;
  let wrongRegion = 0;
  let failed = 0;
  let summary = 'chaos: regions: did not finish';
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const databases: Array<MariadbServer | PostgresServer> = [];
    cleanups.push(async () => {
      for (const database of databases) await database.destroy().catch(() => undefined);
    });
    databases.push(await MariadbServer.create({ log: say }));
    databases.push(await PostgresServer.create({ log: say }));
    for (const [i, database] of databases.entries()) {
      const url = await database.createAppUser(`leaf_region${i}`, 'chaos');
      const store = await openStore({ ...storeUrlTarget(url), migrationsDir: defaultMigrationsDir() });
      stores.push(store);
      await store.tags.createTag({ bizTag: TAG, step: 200 });
      await store.formats.createFormat(
        { bizTag: FORMAT_TAG, pattern: 'RG-{seq:12}', resetPeriod: 'never', timeZone: 'UTC', step: 100 },
        { actor: 'chaos', address: 'local', nodeId: 'chaos', at: Date.now() },
      );
      regions.push({ number: i, database, url, nodes: [], answeredAt: [] });
    }
    const start = async (region: Region, name: string) => {
      const node = region.nodes.find((n) => n.name === name)!;
      node.server = await startNodeServer({
        timeoutMs: 60_000,
        env: {
          ...process.env,
          NODE_ENV: 'production',
          DATABASE_URL: region.url,
          LEAF_NODE_ID: `chaos-${name}`,
          LEAF_LOG_LEVEL: 'warn',
          LEAF_REGIONS: '2',
          LEAF_REGION: control ? '0' : String(region.number),
          LEAF_WORKER_IDS: '1-4',
          LEAF_WORKER_LEASE_MS: '3000',
        },
      });
    };
    for (const region of regions) {
      region.nodes = [`r${region.number}a`, `r${region.number}b`].map((name) => ({ name, server: null }));
      await Promise.all(region.nodes.map((n) => start(region, n.name)));
    }
    say(`region 0: MariaDB :${databases[0]!.port}; region 1: PostgreSQL :${databases[1]!.port}; 2 nodes each`);

    const record = (region: Region, kind: Kind, body: unknown) => {
      region.answeredAt.push(performance.now());
      for (const id of idsOf(kind, body)) {
        // Segment IDs and leased ones share one number line; formatted IDs are compared by their sequence.
        const key = kind === 'lease' ? `segment:${id}` : `${kind}:${id}`;
        if (ids.has(key)) duplicates++;
        ids.set(key, { kind, region: region.number });
        const inRegion =
          kind === 'snowflake'
            ? LAYOUT.decompose(BigInt(id), EPOCH_MS).region === region.number
            : BigInt(id) % 2n === BigInt(region.number);
        if (!inRegion && !control) wrongRegion++;
      }
    };
    let stop = false;
    const client = async (region: Region, c: number) => {
      for (let k = 0; !stop; k++) {
        const kind = KINDS[(k + c) % KINDS.length]!;
        const path = PATHS[kind];
        const giveUpAt = performance.now() + RETRY_BOUND_MS;
        for (;;) {
          const live = region.nodes.filter((n) => n.server !== null);
          const node = live[Math.floor(random() * live.length)];
          const answer = node === undefined ? null : await get(`${node.server!.url}${path}`);
          if (answer !== null && answer.status === 200) {
            record(region, kind, answer.body);
            break;
          }
          // A 503 (retryable) or no answer (a node killed): again, within the bound; anything else is a failure.
          if (stop && performance.now() <= giveUpAt) break; // the run ended while this one was still retrying
          if ((answer !== null && answer.status !== 503) || performance.now() > giveUpAt) {
            failed++;
            say(`region ${region.number} ${kind}: gave up (${answer?.status ?? 'no answer'})`);
            break;
          }
          await sleep(50);
        }
      }
    };
    const clients = regions.flatMap((r) => Array.from({ length: size.clients }, (_, c) => client(r, c)));
    await sleep(3_000);

    const rateOf = (region: Region, from: number, to: number) =>
      region.answeredAt.filter((t) => t >= from && t < to).length / ((to - from) / 1000);
    // Each region's normal rate: the last 2 s before any fault, with both regions under the same load.
    const baseline = regions.map((r) => rateOf(r, performance.now() - 2_000, performance.now()));
    for (const region of regions) {
      const victim = region.nodes[Math.floor(random() * region.nodes.length)]!;
      const server = victim.server!;
      victim.server = null;
      server.child.kill('SIGKILL');
      await server.stop();
      await sleep(500);
      await start(region, victim.name);
      say(`region ${region.number}: ${victim.name} SIGKILLed and started again`);
      await sleep(1_500);
    }
    const shares: string[] = [];
    for (const region of regions) {
      const other = regions[1 - region.number]!;
      const downAt = performance.now();
      await region.database.stop();
      await sleep(size.outageMs);
      const upAt = performance.now();
      await region.database.start();
      const share = rateOf(other, downAt, upAt) / baseline[other.number]!;
      shares.push(share.toFixed(2));
      say(
        `region ${region.number}: database down ${((upAt - downAt) / 1000).toFixed(1)} s; region ${other.number} at ${(share * 100).toFixed(0)} % of its rate`,
      );
      if (!(share >= MIN_RATE_SHARE))
        violations.push(
          `region ${other.number} slowed to ${(share * 100).toFixed(0)} % while region ${region.number}'s database was down`,
        );
      await sleep(2_000);
    }
    stop = true;
    await Promise.all(clients);

    const count = (kind: Kind) => [...ids.values()].filter((v) => v.kind === kind).length;
    if (control) {
      if (duplicates === 0) violations.push('two regions numbered 0 gave no duplicate: the check proved nothing');
    } else if (duplicates > 0) violations.push(`${duplicates} IDs given twice`);
    if (wrongRegion > 0) violations.push(`${wrongRegion} IDs outside their region`);
    if (failed > 0) violations.push(`${failed} requests failed past the retry bound`);
    summary =
      `chaos: regions${control ? ' control' : ''} size=${sizeName} seed=${seed} duplicates=${duplicates} ` +
      `wrong-region=${wrongRegion} ${KINDS.map((k) => `${k}=${count(k)}`).join(' ')} failed=${failed} ` +
      `other-region-rate-during-outage=${shares.join(',')}`;
  } catch (error) {
    violations.push(`harness error: ${(error as Error).stack ?? String(error)}`);
  } finally {
    for (const region of regions) await Promise.all(region.nodes.map((n) => n.server?.stop().catch(() => undefined)));
    for (const store of stores) await store.close().catch(() => undefined);
    for (const cleanup of cleanups) await cleanup();
    await stopAllChildren(0);
    clearTimeout(hardStop);
  }
  for (const v of violations) say(`VIOLATION: ${v}`);
  process.stdout.write(`${summary}: ${violations.length === 0 ? 'PASS' : `FAIL (${violations.length} violations)`}\n`);
  return violations.length === 0 ? 0 : 1;
}

/** The IDs of one answer, as decimal strings: a lease's runs stepped by its stride, a formatted ID's sequence. */
function idsOf(kind: Kind, body: unknown): string[] {
  if (kind === 'lease') {
    const { stride = 1, ranges } = body as { stride?: number; ranges: Array<{ start: string; end: string }> };
    const out: string[] = [];
    for (const { start, end } of ranges)
      for (let id = BigInt(start); id <= BigInt(end); id += BigInt(stride)) out.push(id.toString());
    return out;
  }
  const { ids } = body as { ids: string[] };
  return kind === 'formatted' ? ids.map((id) => String(Number(id.slice('RG-'.length)))) : ids;
}

/** One GET, bounded; null when no answer came (a killed node, a reset). */
async function get(url: string): Promise<{ status: number; body: unknown } | null> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return { status: r.status, body: await r.json() };
  } catch {
    return null;
  }
}
