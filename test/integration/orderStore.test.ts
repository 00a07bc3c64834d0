/**
 * Strict tags' rows (leaf_order, leaf_participant) on MysqlStore (real MariaDB), PostgresStore (real PostgreSQL) and
 * SqliteStore (a real file), the same cases, on each database's own clock: setting the ordering (audited, a missing
 * tag refused, each change one version more, a tag created strict in its own transaction, the row kept when turned
 * back); a change to strict completing only once every participant acknowledged it; acquire only after it completed,
 * refused while another's lease and the margin run, granted after and at once after a release; renew only of a live
 * lease of the same epoch. Then four processes race for the lease on one database: every epoch has exactly one
 * winner. Nothing sleeps a fixed time: each wait polls.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuditStamp } from '../../lib/audit';
import type { LeaseTerms, OwnerClaim } from '../../lib/ordered/orderStore';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import type { LeafStore } from '../../lib/store/leafStore';
import type { TestDatabase } from '../../tools/harness';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, tempDir, waitFor } from '../support/context';
import { killAllWorkers, startWorker } from '../support/procs';

let tmp: TempDir;
const dbs: TestDatabase[] = [];
const stores: LeafStore[] = [];
const stamp: AuditStamp = { actor: 'token:abcdef12', address: '127.0.0.1', nodeId: 'n1', at: 1_800_000_000_000 };

beforeAll(() => {
  tmp = tempDir('leaf-it-order-');
});
afterEach(async () => {
  await killAllWorkers();
});
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
  for (const d of dbs) await d.drop().catch(() => undefined);
  tmp?.remove();
});

type Dialect = 'mysql' | 'postgres' | 'sqlite';
/** A store of its own, and where a worker process opens the same database. */
const factories: Record<Dialect, () => Promise<{ store: LeafStore; where: { url?: string; file?: string } }>> = {
  async postgres() {
    const db = await freshPgDatabase();
    dbs.push(db);
    const store = await PostgresStore.open({ url: db.url });
    stores.push(store);
    return { store, where: { url: db.url } };
  },
  async mysql() {
    const db = await freshMysqlDatabase();
    dbs.push(db);
    const store = await MysqlStore.open({ url: db.url });
    stores.push(store);
    return { store, where: { url: db.url } };
  },
  async sqlite() {
    const file = tmp.file(`o-${stores.length}.db`);
    const store = new SqliteStore({ file });
    stores.push(store);
    return { store, where: { file } };
  },
};

/** Made strict, with no participant registered: the change completes at once. */
async function complete(store: LeafStore, bizTag: string): Promise<void> {
  const { version } = await store.order.setOrdering(bizTag, 'strict');
  expect(await store.order.completeStrict(bizTag, version)).toBe(true);
}

const A: OwnerClaim = { nodeId: 'a', instanceId: 'a-1', address: '127.0.0.1:1001' };
const B: OwnerClaim = { nodeId: 'b', instanceId: 'b-1', address: '127.0.0.1:1002' };

describe.each(['mysql', 'postgres', 'sqlite'] as const)('%s: the owner lease', (dialect) => {
  it('setting the ordering is audited, refused for a missing tag, one version per change; the row outlives none', async () => {
    const { store } = await factories[dialect]();
    await store.tags.createTag({ bizTag: 's', step: 10 });
    await store.tags.createTag({ bizTag: 'o', step: 10 });
    expect(await store.order.setOrdering('s', 'strict', stamp)).toEqual({
      before: 'none',
      after: 'strict',
      version: 1,
    });
    expect(await store.order.setOrdering('s', 'strict', stamp)).toEqual({
      before: 'strict',
      after: 'strict',
      version: 1,
    });
    await expect(store.order.setOrdering('missing', 'strict', stamp)).rejects.toMatchObject({ code: 'tag_not_found' });
    expect(await store.tags.listTags()).toEqual([
      { bizTag: 'o', step: 10 },
      { bizTag: 's', step: 10 },
    ]);
    const first = await store.order.readOrder();
    expect(first.version).toBe(1);
    expect(first.rows).toEqual([
      expect.objectContaining({
        bizTag: 's',
        ordering: 'strict',
        version: 1,
        completeAt: 0,
        epoch: 0,
        ownerNode: null,
      }),
    ]);
    expect(await store.order.setOrdering('s', 'none', stamp)).toEqual({ before: 'strict', after: 'none', version: 2 });
    // Turned back, the row stays (its lease too), so a later change to strict waits out an owner of before.
    expect((await store.order.readOrder()).rows).toEqual([expect.objectContaining({ bizTag: 's', ordering: 'none' })]);
    expect(await store.order.setOrdering('s', 'strict', stamp)).toEqual({
      before: 'none',
      after: 'strict',
      version: 3,
    });
    expect((await store.order.readOrder()).rows[0]).toMatchObject({ ordering: 'strict', version: 3, epoch: 1 });
    // A deleted tag's ordering goes with it: the name created again starts ordinary.
    await store.order.setOrdering('o', 'strict');
    await store.tags.deleteTag('o');
    expect((await store.order.readOrder()).rows.map((r) => r.bizTag)).toEqual(['s']);
    const audit = await store.audit.listAudit({ limit: 10, bizTag: 's' });
    expect(audit.map((r) => [r.action, r.before, r.after])).toEqual([
      ['tag.ordering', { ordering: 'none' }, { ordering: 'strict' }],
      ['tag.ordering', { ordering: 'strict' }, { ordering: 'none' }],
      ['tag.ordering', { ordering: 'none' }, { ordering: 'strict' }],
    ]);
  });

  it('a tag created strict is strict in the same transaction, audited as created and as ordering', async () => {
    const { store } = await factories[dialect]();
    await store.tags.createTag({ bizTag: 'c', step: 10, ordering: 'strict' }, stamp);
    const read = await store.order.readOrder();
    expect(read.rows).toEqual([expect.objectContaining({ bizTag: 'c', ordering: 'strict', version: read.version })]);
    const audit = await store.audit.listAudit({ limit: 10, bizTag: 'c' });
    expect(audit.map((r) => r.action)).toEqual(['tag.ordering', 'tag.create']);
  });

  it('a change to strict completes only when every participant acknowledged it; owners only after', async () => {
    const { store } = await factories[dialect]();
    await store.tags.createTag({ bizTag: 's', step: 10 });
    const p = (id: string) => ({ instanceId: id, kind: 'node' as const, label: id, host: 'h', procKey: `test:${id}` });
    await store.order.registerParticipant(p('p1'));
    await store.order.registerParticipant(p('p2'));
    await store.order.registerParticipant(p('p2')); // again after an unknown outcome: the same row
    const { version } = await store.order.setOrdering('s', 'strict');
    const terms: LeaseTerms = { leaseMs: 60_000, marginMs: 0 };
    expect(await store.order.completeStrict('s', version)).toBe(false);
    expect(await store.order.acquireOwner('s', A, terms, 0)).toBe(false); // pending: nobody owns it
    expect(await store.order.ackParticipant('p1', version)).toBe(true);
    expect(await store.order.completeStrict('s', version)).toBe(false); // p2 is behind
    expect(await store.order.ackParticipant('p2', version + 5)).toBe(true);
    expect(await store.order.ackParticipant('p2', version)).toBe(true); // never lowered
    const { participants } = await store.order.listParticipants();
    expect(participants.map((x) => [x.instanceId, x.ackedVersion])).toEqual([
      ['p1', version],
      ['p2', version + 5],
    ]);
    expect(await store.order.completeStrict('s', version - 1)).toBe(false); // not the version of the change
    expect(await store.order.completeStrict('s', version)).toBe(true);
    expect(await store.order.completeStrict('s', version)).toBe(false); // once
    expect((await store.order.readOrder()).rows[0]!.completeAt).toBeGreaterThan(0);
    expect(await store.order.acquireOwner('s', A, terms, 0)).toBe(true);
    // A process that registers later starts at version 0: the next change waits for it.
    await store.order.registerParticipant(p('p3'));
    await store.order.setOrdering('s', 'none');
    const again = (await store.order.setOrdering('s', 'strict')).version;
    for (const id of ['p1', 'p2']) await store.order.ackParticipant(id, again);
    expect(await store.order.completeStrict('s', again)).toBe(false);
    expect(await store.order.removeParticipant('p3', stamp)).toBe(true); // an operator's word: it is gone
    expect(await store.order.removeParticipant('p3')).toBe(false);
    expect(await store.order.completeStrict('s', again)).toBe(true);
    const forgets = await store.audit.listAudit({ limit: 5 });
    expect(forgets[0]).toMatchObject({
      action: 'participant.forget',
      before: expect.objectContaining({ instanceId: 'p3' }),
    });
    expect(await store.order.ackParticipant('p3', again)).toBe(false); // removed: it must register again
    expect(await store.order.pruneParticipants(60_000)).toBe(0);
  });

  it('a lease is taken once per epoch, kept from others until it and the margin ran out, and renewed only while live', async () => {
    const { store } = await factories[dialect]();
    await store.tags.createTag({ bizTag: 's', step: 10 });
    await complete(store, 's');
    const terms: LeaseTerms = { leaseMs: 400, marginMs: 300 };
    expect(await store.order.acquireOwner('s', A, terms, 0)).toBe(true);
    expect(await store.order.acquireOwner('s', B, terms, 0)).toBe(false); // the epoch moved on
    expect(await store.order.acquireOwner('s', B, terms, 1)).toBe(false); // A's lease is live
    expect(await store.order.renewOwner('s', A.instanceId, 1, terms.leaseMs)).toBe(true);
    expect(await store.order.renewOwner('s', B.instanceId, 1, terms.leaseMs)).toBe(false);
    const row = (await store.order.readOrder()).rows[0]!;
    expect(row).toMatchObject({ epoch: 1, ownerNode: 'a', ownerInstance: 'a-1', ownerAddress: '127.0.0.1:1001' });
    // After the lease and the margin, by the database's clock, B takes it; A can no longer renew epoch 1.
    await waitFor(10_000, async () => ((await store.order.acquireOwner('s', B, terms, 1)) ? true : undefined));
    const { rows, dbNowMs } = await store.order.readOrder();
    expect(dbNowMs).toBeGreaterThan(row.leaseExpiresAt + terms.marginMs);
    expect(rows[0]).toMatchObject({ epoch: 2, ownerNode: 'b' });
    expect(await store.order.renewOwner('s', A.instanceId, 1, terms.leaseMs)).toBe(false);
    // A lease that ran out is not renewed: a successor may hold it already.
    await waitFor(10_000, async () => {
      const r = await store.order.readOrder();
      return r.dbNowMs > r.rows[0]!.leaseExpiresAt ? true : undefined;
    });
    expect(await store.order.renewOwner('s', B.instanceId, 2, terms.leaseMs)).toBe(false);
  });

  it('a release lets the next owner start at once', async () => {
    const { store } = await factories[dialect]();
    await store.tags.createTag({ bizTag: 's', step: 10 });
    await complete(store, 's');
    const long: LeaseTerms = { leaseMs: 60_000, marginMs: 1_000 };
    expect(await store.order.acquireOwner('s', A, long, 0)).toBe(true);
    expect(await store.order.acquireOwner('s', B, long, 1)).toBe(false);
    await store.order.releaseOwner('s', B.instanceId, 1); // not B's: changes nothing
    expect(await store.order.acquireOwner('s', B, long, 1)).toBe(false);
    await store.order.releaseOwner('s', A.instanceId, 1);
    expect(await store.order.acquireOwner('s', B, long, 1)).toBe(true);
    // The owner itself may take the next epoch of its own live lease (a retry after a lost answer).
    expect(await store.order.acquireOwner('s', B, long, 2)).toBe(true);
    expect((await store.order.readOrder()).rows[0]).toMatchObject({ epoch: 3, ownerInstance: 'b-1' });
  });

  it('four processes racing for the lease: every epoch has exactly one winner', async () => {
    const { store, where } = await factories[dialect]();
    await store.tags.createTag({ bizTag: 'race', step: 10 });
    await complete(store, 'race');
    const workers = Array.from({ length: 4 }, (_, i) => startWorker('orderLease.mts', `${dialect}-w${i}`));
    for (const w of workers) w.send({ type: 'config', dialect, ...where, tag: 'race', rounds: 60 });
    await Promise.all(workers.map((w) => w.next('ready', 60_000)));
    for (const w of workers) w.send({ type: 'go' });
    const done = await Promise.all(workers.map((w) => w.next<{ type: string; won: number[] }>('done', 120_000)));
    const won = done.flatMap((d) => d.won).sort((a, b) => a - b);
    const last = (await store.order.readOrder()).rows[0]!.epoch;
    expect(won).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    expect(done.filter((d) => d.won.length > 0).length).toBeGreaterThan(1);
  });
});
