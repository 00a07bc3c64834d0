/**
 * leaf-ts's PostgreSQL store on a 3-node Patroni cluster, through the multi-host URL as a user configures it:
 * - /api/health's host roles (primary, sync standby, async standby) read by the store itself;
 * - synchronous_mode: claims go on while the primary is killed and during a switchover; the store finds the new
 *   primary by itself within a bound, and no acknowledged claim is ever handed out again;
 * - asynchronous replication, the hazard shown: a lagging replica promoted after the primary acknowledged claims
 *   that no standby had, and the next claims hand out those same IDs again. This is why docs say: Patroni with
 *   synchronous_mode, or a single PostgreSQL — never asynchronous failover under leaf-ts.
 * One cluster for the file (synchronous first, then switched to asynchronous for the hazard).
 */
import type { ClaimNote } from '../../lib/claims/claimNote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostProblems } from '@/lib/admin/hostHealth';
import { PostgresStore } from '@/lib/store/postgres';
import { PatroniCluster } from '../../tools/harness';
import { defined } from '../support/defined';

const TAG = 'ha';
const STEP = 100;

let cluster: PatroniCluster;
let store: PostgresStore;

/** A claim the store acknowledged: IDs [from, to] are this claimer's alone. */
interface Claimed {
  from: number;
  to: number;
  at: number;
}

/** Every claim here writes its claim-log row, as a node's does (lib/claims/). */
const NOTE: ClaimNote = {
  claimer: 'patroni-test',
  instance: 'patroni-test-1',
  tailMs: 0,
  region: 0,
  regions: 1,
  kind: 'segment',
  servingFirst: null,
  leasedMax: -1n,
};

async function claim(into: Claimed[]): Promise<void> {
  const a = await store.tags.allocate(TAG, undefined, NOTE);
  const to = Number(a.maxId);
  into.push({ from: to - a.step + 1, to, at: Date.now() });
}

/** Pairs of acknowledged claims that share an ID: each is the same IDs handed out twice. */
function overlaps(claims: Claimed[]): Array<[Claimed, Claimed]> {
  const sorted = [...claims].sort((a, b) => a.from - b.from);
  const found: Array<[Claimed, Claimed]> = [];
  let previous: Claimed | undefined;
  for (const current of sorted) {
    if (previous !== undefined && current.from <= previous.to) found.push([previous, current]);
    previous = current;
  }
  return found;
}

/**
 * `claimers` loops claiming until `during` resolves, each failure (store_unavailable while no primary answers) counted;
 * then returns the claims and the longest time without an acknowledged claim.
 */
async function claimThrough(
  during: () => Promise<void>,
  claimers = 2,
): Promise<{ claims: Claimed[]; failures: number; longestGapMs: number }> {
  const claims: Claimed[] = [];
  let failures = 0;
  let done = false;
  const loops = Array.from({ length: claimers }, async () => {
    while (!done) {
      await claim(claims).catch(() => {
        failures++;
        return new Promise((resolve) => setTimeout(resolve, 100));
      });
    }
  });
  const started = Date.now();
  try {
    await during();
    // The store must claim again on its own after the fault: wait (bounded) for a claim after `during`.
    const after = Date.now();
    const deadline = after + 30_000;
    while (!claims.some((c) => c.at > after) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    done = true;
    await Promise.all(loops);
  }
  let longestGapMs = -Infinity;
  let previous = started;
  for (const at of claims.map((c) => c.at).sort((a, b) => a - b)) {
    longestGapMs = Math.max(longestGapMs, at - previous);
    previous = at;
  }
  return { claims, failures, longestGapMs };
}

async function maxIdOnPrimary(): Promise<number> {
  const primary = await cluster.waitForLeader();
  const answer = await cluster.query(primary, `SELECT max_id FROM leaf_alloc WHERE biz_tag = '${TAG}'`);
  return Number(defined(answer[0]?.[0], `max_id of ${TAG} on the primary`));
}

beforeAll(async () => {
  cluster = await PatroniCluster.create({ nodes: 3, synchronous: true });
  const primary = await cluster.waitForLeader();
  // Role detail (sync_state, the standbys' WAL receiver names) is readable with pg_monitor; docs/operations.md says so.
  await cluster.node(primary).superQuery(`GRANT pg_monitor TO ${cluster.app.user}`, cluster.database);
  // Hosts listed with a standby first: the store must skip it and write to the primary.
  store = await PostgresStore.open({
    url: cluster.url([(primary + 1) % 3, primary, (primary + 2) % 3]),
    connectionLimit: 4,
    restoreHostMs: 1_000,
  });
  await store.tags.createTag({ bizTag: TAG, step: STEP });
}, 400_000);

afterAll(async () => {
  await store?.close();
  await cluster?.destroy();
});

describe('PostgreSQL store on Patroni, synchronous_mode', () => {
  it("health: the store names each host's role as Patroni does, and a synchronous cluster needs no attention", async () => {
    await cluster.waitForReplicasStreaming();
    const patroni = await cluster.roles();
    const hosts = await store.hosts(5_000);
    for (const r of patroni) {
      const h = hosts.find((x) => x.host === cluster.host(r.index));
      expect(h?.postgres?.role, `${cluster.host(r.index)}`).toBe(r.role);
    }
    expect(hosts.find((h) => h.postgres?.role === 'primary')?.postgres?.synchronous).toBe(true);
    expect(hosts.flatMap(hostProblems)).toEqual([]);
  });

  it('the primary killed under claims and opaque creations: the store finds the new one, no acknowledged claim is handed out again or lost its log row, no tag lost its encoding', async () => {
    let killed = -1;
    // Opaque tags created one after another across the kill: each is its leaf_alloc and leaf_encoding rows in one
    // transaction, so on the new primary a tag exists with its encoding or not at all, and an acknowledged one exists.
    const opaque = { encoding: 'opaque' as const, keyId: '0123456789abcdef', heldKeyIds: ['0123456789abcdef'] };
    const created: string[] = [];
    const attempted: string[] = [];
    let creating = true;
    const creations = (async () => {
      for (let k = 0; creating; k++) {
        const bizTag = `opq-${k}`;
        attempted.push(bizTag);
        await store.tags.createTag({ bizTag, step: 10, encoding: opaque }).then(
          () => created.push(bizTag),
          () => new Promise((resolve) => setTimeout(resolve, 100)),
        );
      }
    })();
    const run = await claimThrough(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      killed = await cluster.killPrimary();
      await cluster.waitForLeader({ not: killed });
    });
    creating = false;
    await creations;
    const { encoding, keyId } = opaque;
    const encodings = await store.tags.listEncodings();
    for (const bizTag of attempted) {
      const exists = (await store.tags.getTag(bizTag)) !== undefined;
      if (created.includes(bizTag)) expect(exists, `${bizTag} was acknowledged`).toBe(true);
      expect(encodings.get(bizTag), `${bizTag}'s encoding`).toEqual(exists ? { encoding, keyId } : undefined);
    }
    console.log(
      `[patroniStore] opaque creations across the kill: ${created.length} acknowledged of ${attempted.length}, every one with its encoding on the new primary`,
    );
    expect(created.length).toBeGreaterThan(3);
    console.log(
      `[patroniStore] primary killed: ${run.claims.length} claims acknowledged, ${run.failures} failed meanwhile, longest gap ${run.longestGapMs} ms`,
    );
    expect(overlaps(run.claims)).toEqual([]);
    expect(run.claims.length).toBeGreaterThan(10);
    // Patroni's ttl is 10 s here; the store must be writing again shortly after the promotion.
    expect(run.longestGapMs, 'a liveness bound: claims resume after the failover').toBeLessThan(90_000);
    expect(await maxIdOnPrimary()).toBeGreaterThanOrEqual(Math.max(...run.claims.map((c) => c.to)));
    // Each acknowledged claim's log row committed with it, so it survived the failover with it.
    const logged = new Set(
      (await store.claims.rowsUpTo(TAG, Number.MAX_SAFE_INTEGER)).map((r) => `${r.first}-${r.last}`),
    );
    expect(run.claims.filter((c) => !logged.has(`${c.from}-${c.to}`))).toEqual([]);
    await cluster.restartNode(killed);
  }, 120_000);

  it('a switchover under claims: no claim handed out twice, the store follows', async () => {
    const before = await maxIdOnPrimary();
    const run = await claimThrough(async () => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await cluster.switchover();
    });
    console.log(
      `[patroniStore] switchover: ${run.claims.length} claims, ${run.failures} failed meanwhile, longest gap ${run.longestGapMs} ms`,
    );
    expect(overlaps(run.claims)).toEqual([]);
    expect(Math.min(...run.claims.map((c) => c.from))).toBeGreaterThan(before);
    expect(await maxIdOnPrimary()).toBeGreaterThanOrEqual(Math.max(...run.claims.map((c) => c.to)));
  }, 120_000);
});

describe('asynchronous replication: the hazard', () => {
  it('health says in words that the cluster has no synchronous standby', async () => {
    await cluster.setSynchronous(false);
    const hosts = await store.hosts(5_000);
    const primary = hosts.find((h) => h.postgres?.role === 'primary');
    expect(primary?.postgres?.synchronous).toBe(false);
    expect(hosts.filter((h) => h.postgres?.role === 'async standby')).toHaveLength(2);
    expect(hostProblems(primary!)).toEqual(['no synchronous standby: a failover can lose acknowledged claims']);
  }, 60_000);

  it('a lagging replica promoted: claims the old primary acknowledged are handed out again', async () => {
    const acknowledged: Claimed[] = [];
    const { from, to } = await cluster.promoteLaggingReplica(async () => {
      for (let i = 0; i < 5; i++) await claim(acknowledged);
    });
    const after: Claimed[] = [];
    const deadline = Date.now() + 30_000;
    while (after.length < 5 && Date.now() < deadline)
      await claim(after).catch(() => new Promise((resolve) => setTimeout(resolve, 200)));
    const twice = overlaps([...acknowledged, ...after]);
    console.log(
      `[patroniStore] async failover ${cluster.node(from).name} → ${cluster.node(to).name}: acknowledged ${acknowledged.map((c) => `${c.from}-${c.to}`).join(', ')}; ` +
        `after the promotion ${after.map((c) => `${c.from}-${c.to}`).join(', ')}: ${twice.length} ranges handed out twice`,
    );
    expect(after).toHaveLength(5);
    // The demonstration: every claim acknowledged before the failover is claimed again by the promoted replica.
    expect(twice.length).toBe(5);
  }, 120_000);
});
