/**
 * leaf_claim on MariaDB, PostgreSQL and SQLite (lib/claims/): a claim's row is written with the claim, in its
 * transaction, with the IDs the claim's semantics gives; none without a claimer or when the claim changes nothing.
 * A segment is retired by its process's first later row serving past it, with a lease's tail only when it was leased
 * from; a close row retires the rest; an ID is found in every numbering; pruning keeps what can still be served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimNote } from '../../lib/claims/claimNote';
import { claimsBetween, claimsHolding, pruneClaims } from '../../lib/claims/claimLog';
import { servedUntil } from '../../lib/claims/retirement';
import type { LeafStore } from '../../lib/store/leafStore';
import { codeOf } from '../support/outcomes';
import { type RawStore, rawStoreOpener } from '../support/rawStores';

const openStore = rawStoreOpener('leaf-it-claimlog-');
const EVER = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] as const;

function note(instance: string, over: Partial<ClaimNote> = {}): ClaimNote {
  return {
    claimer: `node-${instance}`,
    instance,
    tailMs: 1_000,
    region: 0,
    regions: 1,
    kind: 'segment',
    servingFirst: null,
    leasedMax: -1n,
    ...over,
  };
}

describe.each(['mysql', 'postgres', 'sqlite'] as const)('%s store: the claim log', (dialect) => {
  let h: RawStore;
  let s: LeafStore;
  beforeAll(async () => {
    h = await openStore(dialect);
    s = h.store;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('writes each noted claim with its IDs and the database time; none without a note or for a failed claim', async () => {
    await s.tags.createTag({ bizTag: 'cl_a', step: 10 });
    const before = Date.now();
    const first = await s.tags.allocate('cl_a', undefined, note('i1'));
    await s.tags.allocate('cl_a'); // not noted: no row
    expect(await codeOf(() => s.tags.allocate('cl_missing', 5, note('i1')))).toBe('tag_not_found');
    const rows = await claimsBetween(s.claims, 'cl_a', ...EVER);
    expect(rows.map((r) => [r.first, r.last, r.kind, r.claimer])).toEqual([[2n, 11n, 'segment', 'node-i1']]);
    expect(BigInt(first.maxId)).toBe(11n);
    expect(rows[0]!.claimedAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(rows[0]!.claimedAt).toBeLessThanOrEqual(Date.now() + 1_000);
    expect(await claimsBetween(s.claims, 'cl_missing', ...EVER)).toEqual([]);
  });

  it("records Leaf's semantics' range, as the claim answers it", async () => {
    await s.tags.createTag({ bizTag: 'cl_leaf', step: 10 });
    await s.semantics.setTagSemantics('cl_leaf', 'leaf');
    const a = await s.tags.allocate('cl_leaf', 5, note('i1'));
    expect(a.semantics).toBe('leaf');
    const [row] = await claimsBetween(s.claims, 'cl_leaf', ...EVER);
    expect([row!.first, row!.last]).toEqual([BigInt(a.maxId) - 5n, BigInt(a.maxId) - 1n]);
  });

  it('retires a segment at the first later row serving past it; a lease tail only where it leased', async () => {
    await s.tags.createTag({ bizTag: 'cl_r', step: 10 });
    const at = async (serving: bigint | null, leasedMax = -1n, instance = 'i2') => {
      await s.tags.allocate('cl_r', undefined, note(instance, { servingFirst: serving, leasedMax }));
    };
    await at(null); // S1 2..11
    await at(2n); // S2 12..21, claimed while serving S1
    await at(12n); // S3, serving S2: S1 done, nothing leased
    await at(22n, 15n); // S4, serving S3: S2 done, leased from up to 15
    await at(2n, -1n, 'other'); // another process's row says nothing of i2's
    const rows = await claimsBetween(s.claims, 'cl_r', ...EVER);
    const of = (first: bigint, claimer = 'node-i2') => rows.find((r) => r.first === first && r.claimer === claimer)!;
    // S1 2..11, S2 12..21, S3 22..31, S4 32..41; the other process's 42..51.
    expect(of(2n).retiredAt).toBe(of(22n).claimedAt);
    expect(of(2n).tailMs).toBe(0);
    expect(of(12n).retiredAt).toBe(of(32n).claimedAt);
    expect(of(12n).tailMs).toBe(1_000);
    expect(servedUntil(of(12n))).toBe(of(32n).claimedAt + 1_000 + 1);
    expect(of(22n).retiredAt).toBeNull();
    expect(of(42n, 'node-other').retiredAt).toBeNull();
    // A window after S2's retirement and tail leaves S1 and S2 out; one at S1's claim keeps it.
    const late = await claimsBetween(s.claims, 'cl_r', of(32n).claimedAt + 2_000, of(32n).claimedAt + 3_000);
    expect(late.map((r) => r.first)).not.toContain(2n);
    expect(late.map((r) => r.first)).not.toContain(12n);
    expect(late.map((r) => r.first)).toContain(22n);
    const early = await claimsBetween(s.claims, 'cl_r', of(2n).claimedAt, of(2n).claimedAt);
    expect(early.map((r) => r.first)).toContain(2n);
    // The close row ends the rest (with the tail: what it leased is unknown).
    await s.claims.recordClose(note('i2'));
    const closed = await claimsBetween(s.claims, 'cl_r', ...EVER);
    const s3 = closed.find((r) => r.first === 22n && r.claimer === 'node-i2')!;
    expect(s3.retiredAt).not.toBeNull();
    expect(s3.tailMs).toBe(1_000);
    expect(closed.find((r) => r.claimer === 'node-other')!.retiredAt).toBeNull();
  });

  it('finds an ID in every numbering it was written in: a region of two, then one of three', async () => {
    await s.tags.createTag({ bizTag: 'cl_reg', step: 10 });
    await s.tags.allocate('cl_reg', undefined, note('i3', { region: 1, regions: 2 })); // positions 2..11
    await s.tags.allocate('cl_reg', undefined, note('i3', { region: 1, regions: 3 })); // positions 12..21
    expect((await claimsHolding(s.claims, 'cl_reg', 2n * 5n + 1n)).map((c) => c.first)).toEqual([2n]);
    expect((await claimsHolding(s.claims, 'cl_reg', 3n * 15n + 1n)).map((c) => c.first)).toEqual([12n]);
    expect(await claimsHolding(s.claims, 'cl_reg', 2n * 5n)).toEqual([]); // region 0's ID
    expect(await s.claims.oldest('cl_reg')).not.toBeNull();
  });

  it('prunes rows done before the cut-off, and keeps a claim that can still be served however old', async () => {
    await s.tags.createTag({ bizTag: 'cl_p', step: 10 });
    await s.tags.allocate('cl_p', undefined, note('i4'));
    await s.tags.allocate('cl_p', undefined, note('i4', { servingFirst: 2n }));
    await s.tags.allocate('cl_p', undefined, note('i4', { servingFirst: 12n })); // retires 2..11
    await s.tags.allocate('cl_p', undefined, note('i5'));
    await pruneClaims(s.claims, Date.now() + 60_000);
    const left = await claimsBetween(s.claims, 'cl_p', ...EVER);
    expect(left.map((r) => [r.claimer, r.first])).toEqual([
      ['node-i4', 12n],
      ['node-i4', 22n],
      ['node-i5', 32n],
    ]);
  });
});
