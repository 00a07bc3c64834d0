/**
 * MysqlStore on a real 3-node Galera cluster (tools/harness/galera.ts), one cluster for the file: concurrent starts
 * (the migration lock is a lease row there: MariaDB 10.11 grants GET_LOCK on every node at once, a node-local lock), one hot tag claimed through three
 * nodes at once (1213 certification failures retried, segments disjoint and exact), a node killed mid-claim and
 * restarted, an isolated (non-primary, 1047) node skipped, snowflake worker leases fenced when their only host
 * leaves the primary component, and admin edits spread over the nodes. Numbers worth knowing are logged as
 * `[galeraStore] …` lines.
 */
import type { ClaimNote } from '../../lib/claims/claimNote';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLeafError } from '../../lib/errors';
import { SnowflakeNode } from '../../lib/snowflake/node';
import { decompose } from '../../lib/snowflake/layout';
import { migrationsFolder } from '../../lib/store/migrations';
import { MysqlStore, type MysqlRetryStats } from '../../lib/store/mysql';
import type { Allocation } from '../../lib/segment/segmentSource';
import { claimedRange } from '../../lib/segment/semantics';
import { GaleraCluster, type TestDatabase } from '../../tools/harness';
import { waitFor, within } from '../support/context';
import { defined } from '../support/defined';

/**
 * Liveness bound: every allocate() settles within this, even while a node is being evicted (~5 s of Galera's own
 * timeouts). Generous, so a loaded machine cannot break it; what happened when is judged from the IDs' timestamps.
 */
const SETTLE_MS = 30_000;
const EPOCH = Date.UTC(2026, 0, 1);

let cluster: GaleraCluster;
let db: TestDatabase;
/** stores[i] prefers node i: its URL lists i first. */
const stores: MysqlStore[] = [];
const extra: Array<{ close(): Promise<void> }> = [];

/** The store preferring node i, opened by the first test. */
function storeOn(i: number): MysqlStore {
  return defined(stores[i], `the store preferring node ${i}`);
}

const report = (line: string) => process.stderr.write(`[galeraStore] ${line}\n`);

/** Each store's host order: node i first, then the others. */
function order(i: number): number[] {
  return [i, (i + 1) % 3, (i + 2) % 3];
}

function open(url: string, over: Partial<Parameters<typeof MysqlStore.open>[0]> = {}): Promise<MysqlStore> {
  return MysqlStore.open({ url, connectTimeoutMs: 2_000, ...over }).then((s) => {
    extra.push(s);
    return s;
  });
}

/** A statement on node i directly, with causal reads (it sees every write committed anywhere before it). */
async function onNode<T>(i: number, fn: (c: mysql.Connection) => Promise<T>): Promise<T> {
  const c = await mysql.createConnection({
    uri: cluster.urlFor(i, db.name),
    connectTimeout: 5_000,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  try {
    await c.query('SET SESSION wsrep_sync_wait = 1');
    return await fn(c);
  } finally {
    c.destroy();
  }
}

async function rows<T>(i: number, text: string, values: unknown[] = []): Promise<T[]> {
  return onNode(i, async (c) => (await c.query(text, values))[0] as T[]);
}

async function maxIdOn(i: number, tag: string): Promise<number> {
  const [r] = await rows<{ max_id: string }>(i, 'SELECT max_id FROM leaf_alloc WHERE biz_tag = ?', [tag]);
  return Number(defined(r, `the leaf_alloc row of ${tag} on node ${i}`).max_id);
}

function sumRetries(): MysqlRetryStats {
  const total: MysqlRetryStats = { certification: 0, lockWait: 0, notPrimary: 0, connect: 0, lostConnection: 0 };
  for (const s of stores) for (const k of Object.keys(total) as Array<keyof MysqlRetryStats>) total[k] += s.retries[k];
  return total;
}

function diff(a: MysqlRetryStats, b: MysqlRetryStats): MysqlRetryStats {
  const out = { ...a };
  for (const k of Object.keys(out) as Array<keyof MysqlRetryStats>) out[k] = a[k] - b[k];
  return out;
}

/** No two segments overlap; each is (maxId - step, maxId]; all lie within (start, end]. */
function expectDisjoint(segments: Allocation[], start: number, end: number): void {
  const sorted = [...segments].sort((a, b) => Number(a.maxId) - Number(b.maxId));
  let floor: Allocation['maxId'] = start;
  for (const segment of sorted) {
    expect(Number(segment.maxId) - segment.step).toBeGreaterThanOrEqual(floor);
    expect(segment.maxId).toBeLessThanOrEqual(end);
    floor = segment.maxId;
  }
}

interface Timed {
  ok: Allocation[];
  errors: unknown[];
  maxMs: number;
}

/** allocate() in a loop until `stop()` says so; every call is timed and bounded. */
async function claimLoop(store: MysqlStore, tag: string, stop: () => boolean, out: Timed): Promise<void> {
  while (!stop()) {
    const t = performance.now();
    try {
      out.ok.push(await within(SETTLE_MS, store.tags.allocate(tag), 'allocate'));
    } catch (error) {
      out.errors.push(error);
    }
    out.maxMs = Math.max(out.maxMs, performance.now() - t);
  }
}

const timed = (): Timed => ({ ok: [], errors: [], maxMs: 0 });

beforeAll(async () => {
  cluster = await GaleraCluster.create({ nodes: 3 });
  db = await cluster.createDatabase('leaf_gstore');
});

afterAll(async () => {
  for (const s of extra) await s.close().catch(() => {});
  await cluster?.destroy();
});

describe('MysqlStore on Galera', () => {
  it('several stores start at once, each preferring another node: migrations apply exactly once, tables on every node', async () => {
    const opened = await within(
      60_000,
      Promise.all([0, 1, 2].map((i) => open(cluster.multiHostUrl(order(i), db.name)))),
      'concurrent open',
    );
    stores.push(...opened);
    const expected = readMigrationFiles({ migrationsFolder: migrationsFolder('mysql') });
    for (const i of [0, 1, 2]) {
      const applied = await rows<{ hash: string }>(i, 'SELECT hash FROM __drizzle_migrations ORDER BY id');
      expect(applied.map((r) => r.hash)).toEqual(expected.map((m) => m.hash));
      const tables = await rows<{ t: string }>(
        i,
        'SELECT table_name AS t FROM information_schema.tables WHERE table_schema = DATABASE()',
      );
      expect(tables.map((r) => r.t)).toEqual(
        expect.arrayContaining(['leaf_alloc', 'leaf_worker', 'leaf_alloc_tombstone', '__leaf_migration_lock']),
      );
      // The lease row of the fallback lock is gone again.
      expect(await rows(i, 'SELECT * FROM __leaf_migration_lock')).toEqual([]);
    }
  });

  it('one tag claimed through three nodes at once: 1213 retried, segments disjoint and exact, max_id accounts for every claim', async () => {
    const start = 1_000;
    await storeOn(0).tags.createTag({ bizTag: 'hot', step: 3, maxId: start });
    await waitFor(
      10_000,
      async () => ((await Promise.all(stores.map((s) => s.tags.getTag('hot')))).every(Boolean) ? true : undefined),
      'tag on all nodes',
    );
    const before = sumRetries();
    const perStore = 300;
    const results = await Promise.all(
      stores.map((s) => Promise.allSettled(Array.from({ length: perStore }, () => s.tags.allocate('hot')))),
    );
    const ok = results.flat().flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = results.flat().flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    const retried = diff(sumRetries(), before);
    const end = await maxIdOn(1, 'hot');
    report(
      `hot tag: ${ok.length} claims ok, ${failed.length} failed, retries ${JSON.stringify(retried)}, max_id ${end}`,
    );
    for (const f of failed.slice(0, 3))
      report(`  failure: ${String(f)} / cause ${String((f as { cause?: unknown }).cause)}`);
    // 900 claims of one row at once is far beyond Leaf's load (one claim per segment); a claim may still lose
    // certification more times than its attempts allow. Such a failure is a certain non-commit (1213), never a gap.
    for (const f of failed) expect(f).toMatchObject({ code: 'store_unavailable', cause: { errno: 1213 } });
    expect(failed.length).toBeLessThan(perStore * 3 * 0.01);
    for (const a of ok) expect(a.step).toBe(3);
    expectDisjoint(ok, start, end);
    // No unknown outcome here (no connection was lost), so no gap: max_id is exactly the start plus every claim.
    expect(retried.lostConnection).toBe(0);
    expect(end).toBe(start + 3 * ok.length);
    // Three nodes writing one row: Galera must have refused some of them at certification.
    expect(retried.certification).toBeGreaterThan(0);
  });

  it("a formatted tag's fresh period claimed through three nodes at once: the first INSERTs race, numbers disjoint and contiguous from 1", async () => {
    // The period row does not exist yet: every node's first claim is an INSERT of the same key, so Galera must
    // certify one and refuse the others (1213), which the store retries as an UPDATE of the row that won.
    const before = sumRetries();
    const perStore = 200;
    const step = 5;
    const results = await Promise.all(
      stores.map((s) =>
        Promise.allSettled(
          Array.from({ length: perStore }, () =>
            within(SETTLE_MS, s.formats.claimPeriod('ord', '20270101', step, 999_999), 'claimPeriod'),
          ),
        ),
      ),
    );
    const ok = results.flat().flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = results.flat().flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    const retried = diff(sumRetries(), before);
    const [row] = await rows<{ max_id: string }>(
      2,
      'SELECT max_id FROM leaf_format_period WHERE biz_tag = ? AND period_key = ?',
      ['ord', '20270101'],
    );
    report(
      `fresh period: ${ok.length} claims ok, ${failed.length} failed, retries ${JSON.stringify(retried)}, max_id ${row?.max_id}`,
    );
    for (const f of failed) expect(f).toMatchObject({ code: 'store_unavailable', cause: { errno: 1213 } });
    expect(failed.length).toBeLessThan(perStore * 3 * 0.01);
    expect(ok.every((c) => c.count === step)).toBe(true);
    const numbers = ok
      .flatMap((c) => Array.from({ length: c.count }, (_, k) => c.lastSeq - c.count + 1 + k))
      .sort((a, b) => a - b);
    // No connection was lost, so no claim's outcome was unknown: every number from 1 to max_id is owned exactly once.
    expect(retried.lostConnection).toBe(0);
    expect(numbers).toEqual(Array.from({ length: step * ok.length }, (_, i) => i + 1));
    expect(Number(row?.max_id)).toBe(step * ok.length);
  });

  it('a node killed mid-claim: the stores keep claiming through the others within bounds; it rejoins and serves again', async () => {
    await storeOn(0).tags.createTag({ bizTag: 'kill', step: 10, maxId: 0 });
    await waitFor(
      10_000,
      async () => ((await Promise.all(stores.map((s) => s.tags.getTag('kill')))).every(Boolean) ? true : undefined),
      'tag on all nodes',
    );
    const before = sumRetries();
    const out = [timed(), timed(), timed()];
    let stop = false;
    const loops = out.map((o, i) => claimLoop(storeOn(i), 'kill', () => stop, o));
    try {
      await waitFor(20_000, () => (out.every((o) => o.ok.length >= 10) ? true : undefined), 'claims before the kill');
      const atKill = out.map((o) => ({ o, claims: o.ok.length }));
      const killedAt = performance.now();
      await cluster.kill(1);
      report(`node 2 killed and evicted in ${Math.round(performance.now() - killedAt)} ms`);
      await waitFor(
        30_000,
        () => (atKill.every(({ o, claims }) => o.ok.length >= claims + 20) ? true : undefined),
        'claims after the kill',
      );
    } finally {
      stop = true;
      await Promise.all(loops);
    }
    const retried = diff(sumRetries(), before);
    const maxMs = Math.max(...out.map((o) => o.maxMs));
    report(
      `during the kill: max allocate ${Math.round(maxMs)} ms, errors ${out.map((o) => o.errors.length)}, retries ${JSON.stringify(retried)}`,
    );
    for (const e of out.flatMap((o) => o.errors).slice(0, 3))
      report(`  error: ${String(e)} / cause ${String((e as { cause?: unknown }).cause)}`);
    expect(out.flatMap((o) => o.errors)).toEqual([]);
    expect(maxMs).toBeLessThan(SETTLE_MS);
    const all = out.flatMap((o) => o.ok);
    const end = await maxIdOn(0, 'kill');
    expectDisjoint(all, 0, end);
    // A claim whose answer was lost with the node may have committed: its segment is a gap, never handed out twice.
    const gap = end - 10 * all.length;
    report(
      `kill: ${all.length} segments, max_id ${end}, gap ${gap} (${gap / 10} unknown-outcome claims; ${retried.lostConnection} lost answers retried)`,
    );
    expect(gap).toBeGreaterThanOrEqual(0);
    expect(gap / 10).toBeLessThanOrEqual(retried.lostConnection);

    await cluster.restart(1);
    const health = await storeOn(1).hosts();
    expect(health[0]).toMatchObject({
      reachable: true,
      galera: { state: 'Synced', clusterSize: 3, clusterStatus: 'Primary' },
    });
    // Once its set-aside time is over, stores[1] claims through node 2 again: that node's own commits grow.
    const commits = async () => {
      const [status] = await rows<{ Value: string }>(1, "SHOW GLOBAL STATUS LIKE 'wsrep_local_commits'");
      return Number(defined(status, 'wsrep_local_commits of node 2').Value);
    };
    const base = await commits();
    await waitFor(
      20_000,
      async () => {
        await storeOn(1).tags.allocate('kill');
        return (await commits()) > base ? true : undefined;
      },
      'claims through the restarted node',
      200,
    );
    const direct = await open(cluster.urlFor(1, db.name));
    expect((await direct.tags.allocate('kill')).maxId).toBeGreaterThan(end);
  });

  it('an isolated node (non-primary, 1047): its store claims through the others within bounds; health shows it; heal', async () => {
    await storeOn(0).tags.createTag({ bizTag: 'iso', step: 10, maxId: 0 });
    await waitFor(
      10_000,
      async () => ((await Promise.all(stores.map((s) => s.tags.getTag('iso')))).every(Boolean) ? true : undefined),
      'tag on all nodes',
    );
    const before = sumRetries();
    const out = timed();
    let stop = false;
    const loop = claimLoop(storeOn(0), 'iso', () => stop, out);
    try {
      await waitFor(20_000, () => (out.ok.length >= 10 ? true : undefined), 'claims before isolation');
      await cluster.isolate(0);
      const atIsolated = out.ok.length;
      await waitFor(20_000, () => (out.ok.length >= atIsolated + 30 ? true : undefined), 'claims while isolated');
      const health = await storeOn(0).hosts();
      report(`health while node 1 is isolated: ${JSON.stringify(health)}`);
      expect(health[0]?.reachable).toBe(true);
      expect(health[0]?.galera?.clusterStatus).not.toBe('Primary');
      expect(health[0]?.galera?.ready).toBe(false);
      expect(health[1]).toMatchObject({
        reachable: true,
        galera: { state: 'Synced', clusterStatus: 'Primary', clusterSize: 2 },
      });
    } finally {
      stop = true;
      await loop;
      await cluster.heal(0);
    }
    const retried = diff(sumRetries(), before);
    report(
      `during isolation: max allocate ${Math.round(out.maxMs)} ms, errors ${out.errors.length}, retries ${JSON.stringify(retried)}`,
    );
    for (const e of out.errors.slice(0, 3))
      report(`  error: ${String(e)} / cause ${String((e as { cause?: unknown }).cause)}`);
    expect(out.errors).toEqual([]);
    expect(out.maxMs).toBeLessThan(SETTLE_MS);
    expect(retried.notPrimary).toBeGreaterThan(0);
    expectDisjoint(out.ok, 0, await maxIdOn(1, 'iso'));
    expect((await storeOn(0).hosts())[0]).toMatchObject({
      reachable: true,
      galera: { state: 'Synced', clusterStatus: 'Primary', clusterSize: 3 },
    });
    await storeOn(0).tags.allocate('iso');
  });

  it('a snowflake node whose only host is isolated stops issuing within its lease, and resumes above its fence after heal', async () => {
    const leaseMs = 6_000;
    const store = await open(cluster.urlFor(2, db.name), { queryTimeoutMs: 2_000 });
    const node = new SnowflakeNode({ store: store.workers, nodeId: 'sf-single', epochMs: EPOCH, leaseMs });
    await node.start();
    extra.push({ close: () => node.stop() });
    expect(node.status().state).toBe('ready');
    const workerId = node.workerId as number;
    const issued: Array<{ id: bigint; at: number }> = [];
    const take = () => {
      try {
        const id = node.nextId();
        if (typeof id === 'bigint') issued.push({ id, at: Date.now() });
        return true;
      } catch (error) {
        expect(isLeafError(error) && error.code === 'snowflake_unavailable', String(error)).toBe(true);
        return false;
      }
    };
    expect(take()).toBe(true);

    let lastBefore: bigint | undefined;
    await cluster.isolate(2);
    try {
      // Issue until it refuses: bounded by the lease (plus the isolation's own wait).
      const refusedAt = await waitFor(
        leaseMs + 5_000,
        () => (take() ? undefined : Date.now()),
        'the node to stop issuing',
        5,
      );
      const [row] = await rows<{ lease_expires_at: string; last_timestamp: string; instance_id: string }>(
        0,
        'SELECT lease_expires_at, last_timestamp, instance_id FROM leaf_worker WHERE worker_id = ?',
        [workerId],
      );
      const lease = defined(row, `the leaf_worker row of worker ${workerId}`);
      const expiresAt = Number(lease.lease_expires_at);
      const fence = Number(lease.last_timestamp);
      const lastIssuedMs = Math.max(...issued.map(({ id }) => decompose(id, EPOCH).timestampMs));
      report(
        `single host isolated: last ID issued ${expiresAt - lastIssuedMs} ms before its lease expired (fence ${fence - lastIssuedMs} ms above it; refusal seen ${expiresAt - refusedAt} ms before expiry); state ${node.status().state}, lastError ${node.status().lastError}`,
      );
      expect(lease.instance_id).toBe(node.instanceId);
      // It stopped before anyone else could take the id over (the row is claimable only once the database clock
      // passes lease_expires_at), and every ID it issued is below the fence it reserved.
      expect(lastIssuedMs).toBeLessThan(fence);
      expect(fence).toBeLessThanOrEqual(expiresAt);
      lastBefore = issued.at(-1)?.id ?? 0n;
      // Still refusing: nothing is issued while the host stays out.
      expect(take()).toBe(false);
    } finally {
      await cluster.heal(2);
    }
    await waitFor(15_000, () => (take() ? true : undefined), 'issuing again after heal', 50);
    const after = issued.at(-1)?.id as bigint;
    expect(after).toBeGreaterThan(lastBefore ?? 0n);
    expect(node.workerId).toBe(workerId);
    await node.stop();
  });

  it('a snowflake node with several hosts keeps issuing while its first host is isolated', async () => {
    const leaseMs = 6_000;
    const store = await open(cluster.multiHostUrl([1, 0, 2], db.name), { queryTimeoutMs: 2_000 });
    const node = new SnowflakeNode({ store: store.workers, nodeId: 'sf-multi', epochMs: EPOCH, leaseMs });
    await node.start();
    extra.push({ close: () => node.stop() });
    expect(node.status().state).toBe('ready');
    let refusals = 0;
    let ids = 0;
    let stop = false;
    const issuing = (async () => {
      while (!stop) {
        try {
          node.nextId();
          ids++;
        } catch {
          refusals++;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    try {
      const isolatedAt = Date.now();
      await cluster.isolate(1);
      // At least a whole lease after isolation, with renewals answered (through another host) since.
      await waitFor(
        leaseMs * 3,
        () => {
          const renewed = Date.parse(node.status().leaseRenewedAt ?? '');
          return Date.now() - isolatedAt > leaseMs * 1.5 && renewed > isolatedAt + leaseMs ? true : undefined;
        },
        'renewals through another host',
        100,
      );
    } finally {
      stop = true;
      await issuing;
      await cluster.heal(1);
    }
    report(`several hosts, first isolated: ${ids} IDs, ${refusals} refusals, retries ${JSON.stringify(store.retries)}`);
    expect(refusals).toBe(0);
    expect(store.retries.notPrimary + store.retries.lostConnection).toBeGreaterThan(0);
    await node.stop();
  });

  it('admin edits spread over the nodes behave as on one server', async () => {
    for (let k = 0; k < 5; k++) {
      const tag = `adm-${k}`;
      const [a, b, c] = [storeOn(k % 3), storeOn((k + 1) % 3), storeOn((k + 2) % 3)];
      expect(await a.tags.createTag({ bizTag: tag, step: 10, maxId: 500 })).toMatchObject({
        bizTag: tag,
        step: 10,
        maxId: 500,
      });
      expect(await b.tags.updateTag(tag, { step: 20, description: 'moved' })).toMatchObject({
        step: 20,
        description: 'moved',
      });
      expect(await c.tags.raiseMaxId(tag, 1_000)).toMatchObject({ maxId: 1_000, step: 20 });
      await expect(a.tags.raiseMaxId(tag, 900)).rejects.toMatchObject({ code: 'max_id_lowered' });
      expect(await a.tags.allocate(tag)).toEqual({ bizTag: tag, maxId: 1_020, step: 20, semantics: 'leaf-ts' });
      await expect(c.tags.createTag({ bizTag: tag, step: 1 })).rejects.toMatchObject({ code: 'tag_exists' });
      expect(await b.tags.deleteTag(tag)).toEqual({ maxId: 1_020 });
      expect(await c.tags.getTombstone(tag)).toEqual({ maxId: 1_020 });
      await expect(a.tags.allocate(tag)).rejects.toMatchObject({ code: 'tag_not_found' });
      await expect(c.tags.createTag({ bizTag: tag, step: 10, maxId: 5 })).rejects.toMatchObject({
        code: 'max_id_below_tombstone',
      });
      expect(await a.tags.createTag({ bizTag: tag, step: 10 })).toMatchObject({ maxId: 1_020 });
      expect(await b.tags.getTombstone(tag)).toBeUndefined();
      expect(await c.tags.allocate(tag)).toEqual({ bizTag: tag, maxId: 1_030, step: 10, semantics: 'leaf-ts' });
    }
  });

  it('an opaque tag created through one node is opaque on the others: read after a claim there, never missed; two creations racing leave one encoding', async () => {
    const key = { encoding: 'opaque' as const, keyId: '0123456789abcdef' };
    const requested = { ...key, heldKeyIds: [key.keyId] };
    for (let k = 0; k < 12; k++) {
      const bizTag = `opq-${k}`;
      const [a, b, c] = [storeOn(k % 3), storeOn((k + 1) % 3), storeOn((k + 2) % 3)];
      await a.tags.createTag({ bizTag, step: 10, encoding: requested });
      // The engine's order (lib/opaque/opaqueTags.ts): a claim, then the encoding read — here each on another node.
      await b.tags.allocate(bizTag);
      expect(await c.tags.getEncoding(bizTag), `${bizTag} read through node ${(k + 2) % 3}`).toEqual(key);
    }
    // A plain and an opaque creation of one name at once, through two nodes: one tag, with the winner's encoding
    // on every node; the name keeps it after a delete, re-created through a third node.
    for (let k = 0; k < 6; k++) {
      const bizTag = `opq-race-${k}`;
      const outcomes = await Promise.allSettled([
        storeOn(k % 3).tags.createTag({ bizTag, step: 10 }),
        storeOn((k + 1) % 3).tags.createTag({ bizTag, step: 10, encoding: requested }),
      ]);
      const won = outcomes.findIndex((o) => o.status === 'fulfilled');
      expect(outcomes.filter((o) => o.status === 'fulfilled').length, `${bizTag}: one creation wins`).toBe(1);
      for (let i = 0; i < 3; i++) expect(await storeOn(i).tags.getEncoding(bizTag)).toEqual(won === 0 ? null : key);
      await storeOn((k + 2) % 3).tags.deleteTag(bizTag);
      await expect(
        storeOn(k % 3).tags.createTag({ bizTag, step: 10, ...(won === 0 ? { encoding: requested } : {}) }),
      ).rejects.toMatchObject({ code: 'encoding_conflict' });
    }
  });

  it('logged claims through three nodes at once: every acknowledged claim has its one log row, the same on every node', async () => {
    const tag = 'logged-hot';
    await storeOn(0).tags.createTag({ bizTag: tag, step: 10 });
    const note = (i: number): ClaimNote => ({
      claimer: `node-${i}`,
      instance: `galera-${i}`,
      tailMs: 0,
      region: 0,
      regions: 1,
      kind: 'segment',
      servingFirst: null,
      leasedMax: -1n,
    });
    const acknowledged: Array<{ first: bigint; last: bigint }> = [];
    let failed = 0;
    const deadline = Date.now() + 3_000;
    await Promise.all(
      stores.map(async (_, i) => {
        while (Date.now() < deadline) {
          try {
            const a = await within(SETTLE_MS, storeOn(i).tags.allocate(tag, undefined, note(i)), 'allocate');
            acknowledged.push({ first: BigInt(a.maxId) - 9n, last: BigInt(a.maxId) });
          } catch {
            failed++;
          }
        }
      }),
    );
    const views = await Promise.all(stores.map((_, i) => storeOn(i).claims.rowsUpTo(tag, Number.MAX_SAFE_INTEGER)));
    const keyOf = (r: { first: bigint; last: bigint }) => `${r.first}-${r.last}`;
    for (const [i, rows] of views.entries()) {
      expect(rows.map(keyOf).sort(), `node ${i} sees the rows node 0 does`).toEqual(views[0]!.map(keyOf).sort());
    }
    const logged = new Map(views[0]!.map((r) => [keyOf(r), r]));
    expect(acknowledged.filter((c) => !logged.has(keyOf(c)))).toEqual([]);
    // A row without an acknowledgement is a claim whose answer was lost (run again): never two rows of one segment.
    expect(logged.size).toBe(views[0]!.length);
    console.log(
      `[galeraStore] logged claims: ${acknowledged.length} acknowledged, ${failed} failed, ${views[0]!.length} rows on each node`,
    );
    expect(acknowledged.length).toBeGreaterThan(30);
  });

  // Worst case: every node claims the row without pause. An audited change is a transaction of several round trips
  // (lock and read, change, read, insert, commit), so a claim committed through another node meanwhile often wins
  // certification, and a change may lose all its attempts: it answers store_unavailable, applied nowhere and
  // recorded nowhere. What must hold is that every applied change has exactly one entry, the same on every node.
  it('audited edits and raises through three nodes while claims race them: one entry per applied change, the same trail on every node', async () => {
    const tag = 'aud-race';
    const stamp = (i: number) => ({
      actor: `token:race000${i}`,
      address: `10.0.0.${i}`,
      nodeId: `node-${i}`,
      at: Date.now(),
    });
    await storeOn(0).tags.createTag({ bizTag: tag, step: 10, maxId: 1 }, stamp(0));
    let stop = false;
    const claims = stores.map(() => timed());
    const claiming = claims.map((c, i) => claimLoop(storeOn(i), tag, () => stop, c));
    let refused = 0;
    let lost = 0;
    const failed: unknown[] = [];
    const applied = await Promise.all(
      stores.map(async (s, i) => {
        let changes = 0;
        for (let n = 1; n <= 8; n++) {
          try {
            if (n % 2 === 0) await s.tags.updateTag(tag, { description: `d${i}-${n}` }, stamp(i));
            else await s.tags.raiseMaxId(tag, 1_000 * (3 * n + i), stamp(i));
            changes++;
          } catch (error) {
            if (isLeafError(error) && error.code === 'max_id_lowered') refused++;
            else if (
              isLeafError(error) &&
              error.code === 'store_unavailable' &&
              (error.cause as { errno?: number }).errno === 1213
            )
              lost++;
            else failed.push(error);
          }
        }
        return changes;
      }),
    );
    stop = true;
    await Promise.all(claiming);
    expect(failed).toEqual([]);
    // A claim racing a storm of audited edits on its row may lose certification more times than its attempts allow
    // (a clean-clone run saw 1 such claim). That is a certain non-commit (1213), never a gap or an overlap, and the
    // engine claims again; anything else, or more than a few, fails the test.
    const claimErrors = claims.flatMap((c) => c.errors);
    for (const e of claimErrors) expect(e).toMatchObject({ code: 'store_unavailable', cause: { errno: 1213 } });
    const claimCount = claims.reduce((n, c) => n + c.ok.length, 0);
    expect(
      claimErrors.length,
      `${claimErrors.length} of ${claimCount} claims lost certification on every attempt`,
    ).toBeLessThanOrEqual(Math.max(3, claimCount * 0.01));

    type Entry = { id: string; action: string; node_id: string; before: string | null; after: string | null };
    const trails = await Promise.all(
      [0, 1, 2].map((i) =>
        rows<Entry>(i, 'SELECT id, action, node_id, `before`, `after` FROM leaf_audit WHERE biz_tag = ? ORDER BY id', [
          tag,
        ]),
      ),
    );
    expect(trails[1]).toEqual(trails[0]);
    expect(trails[2]).toEqual(trails[0]);
    const trail = trails[0]!;
    expect(applied[0]! + applied[1]! + applied[2]!, 'some changes get through').toBeGreaterThan(0);
    expect(trail).toHaveLength(1 + applied[0]! + applied[1]! + applied[2]!);
    for (let i = 0; i < 3; i++)
      expect(trail.filter((e) => e.node_id === `node-${i}`)).toHaveLength(applied[i]! + (i === 0 ? 1 : 0));
    // Each entry's rows are the ones its own transaction saw: a raise lands exactly on its target, never below
    // where it started; an edit changes the description only.
    for (const e of trail.slice(1)) {
      const before = JSON.parse(e.before!);
      const after = JSON.parse(e.after!);
      if (e.action === 'tag.raise') expect(Number(after.maxId)).toBeGreaterThanOrEqual(Number(before.maxId));
      else expect({ ...after, description: before.description, updateTime: before.updateTime }).toEqual(before);
    }
    report(
      `audited race: ${trail.length - 1} changes applied, ${refused} raises refused, ${lost} lost certification 8 times, ${claimCount} claims (${claimErrors.length} lost it on every attempt), retries ${JSON.stringify(sumRetries())}`,
    );
  });

  it('the fleet default flipped through one node while three nodes claim one row: each claim owns its range under its own semantics, none overlap', async () => {
    const tag = 'sem-race';
    await storeOn(0).tags.createTag({ bizTag: tag, step: 5, maxId: 1_000 });
    await waitFor(
      10_000,
      async () => ((await Promise.all(stores.map((s) => s.tags.getTag(tag)))).every(Boolean) ? true : undefined),
      'tag on all nodes',
    );
    let stop = false;
    const claims: Allocation[] = [];
    // A claim every few ms per node: far more than Leaf's one claim per segment, yet a switch (a transaction of a few
    // round trips) can still win certification against them.
    const claiming = stores.map(async (s) => {
      while (!stop) {
        claims.push(await s.tags.allocate(tag));
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    });
    let switched = 0;
    let lost = 0;
    for (const to of ['leaf', 'leaf-ts', 'leaf', 'leaf-ts', 'leaf', 'leaf-ts'] as const) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      // On a quiet machine the claims come fast enough (thousands in the run) that a switch can lose certification
      // five times in a row (a clean-clone run saw it): an operator retries, so the test does, with a random pause.
      for (let attempt = 0; attempt < 30; attempt++) {
        try {
          await storeOn(switched % 3).semantics.setDefaultSemantics(to);
          switched++;
          break;
        } catch (error) {
          // A switch that lost certification changed nothing (1213 is a certain non-commit).
          expect(error).toMatchObject({ code: 'store_unavailable', cause: { errno: 1213 } });
          lost++;
          await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 50));
        }
      }
    }
    stop = true;
    await Promise.all(claiming);
    const ranges = claims
      .map((a) => claimedRange(Number(a.maxId), a.step, a.semantics))
      .sort((a, b) => a.first - b.first);
    for (let k = 1; k < ranges.length; k++) expect(ranges[k]!.first, `range ${k}`).toBeGreaterThan(ranges[k - 1]!.last);
    const leaf = claims.filter((a) => a.semantics === 'leaf').length;
    report(
      `semantics race: ${claims.length} claims (${leaf} in leaf), ${switched} switches applied, ${lost} attempts lost certification`,
    );
    expect(switched).toBe(6);
    expect(leaf).toBeGreaterThan(0);
    expect(leaf).toBeLessThan(claims.length);
    await storeOn(0).semantics.setDefaultSemantics('leaf-ts');
  });
});
