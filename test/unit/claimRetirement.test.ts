/**
 * The claim log's retirement rule (lib/claims/retirement.ts) on hand-made rows: a process's segment ends at its first
 * later row serving past it, a lease's tail only where it leased, a close row ends the rest, a lease row ends at once;
 * windows and pruning follow from it; the pruner runs on its interval and survives a failing store.
 */
import { describe, expect, it } from 'vitest';
import { type ClaimRow, liveBetween, prunable, retire, servedUntil } from '@/lib/claims/retirement';
import { CLOSE_SERVING_FIRST } from '@/lib/claims/claimNote';
import { ClaimLogPruner } from '@/lib/claims/pruner';
import { FakeClock, flush } from '../support/fakes';

let nextId = 1;
function row(over: Partial<ClaimRow> & Pick<ClaimRow, 'first' | 'claimedAt'>): ClaimRow {
  return {
    id: nextId++,
    bizTag: 't',
    last: over.first + 9n,
    kind: 'segment',
    claimer: 'a',
    instance: 'a1',
    servingFirst: null,
    leasedMax: -1n,
    tailMs: 100,
    region: 0,
    regions: 1,
    ...over,
  };
}

describe('retire', () => {
  it("ends a segment at its process's first row serving past it, with the tail only if it leased", () => {
    const rows = [
      row({ first: 1n, claimedAt: 10 }),
      row({ first: 11n, claimedAt: 20, servingFirst: 1n }),
      row({ first: 21n, claimedAt: 30, servingFirst: 11n }), // S1 done, nothing leased
      row({ first: 31n, claimedAt: 40, servingFirst: 21n, leasedMax: 12n }), // S2 done, leased from
      row({ first: 41n, claimedAt: 35, servingFirst: 200n, instance: 'b1', claimer: 'b' }), // another process
    ];
    const claims = retire(rows);
    const of = (first: bigint) => claims.find((c) => c.first === first)!;
    expect([of(1n).retiredAt, of(1n).tailMs, servedUntil(of(1n))]).toEqual([30, 0, 31]);
    expect([of(11n).retiredAt, of(11n).tailMs, servedUntil(of(11n))]).toEqual([40, 100, 141]);
    expect(of(21n).retiredAt).toBeNull();
    expect(of(41n).retiredAt).toBeNull();
  });

  it('a close row ends what is left (keeping the tail), a lease row ends at its claim, null serving retires nothing', () => {
    const rows = [
      row({ first: 1n, claimedAt: 10 }),
      row({ first: 11n, claimedAt: 20, servingFirst: null }),
      row({ first: 21n, claimedAt: 25, kind: 'lease', servingFirst: null }),
      row({
        first: 0n,
        last: 0n,
        claimedAt: 50,
        kind: 'close',
        bizTag: '',
        servingFirst: CLOSE_SERVING_FIRST,
        leasedMax: null,
      }),
    ];
    const claims = retire(rows);
    expect(claims.map((c) => [c.first, c.kind, c.retiredAt, c.tailMs])).toEqual([
      [1n, 'segment', 50, 100],
      [11n, 'segment', 50, 100],
      [21n, 'lease', 25, 100],
    ]);
  });
});

describe('liveBetween and prunable', () => {
  const rows = [
    row({ first: 1n, claimedAt: 10 }),
    row({ first: 11n, claimedAt: 20, servingFirst: 1n }),
    row({ first: 21n, claimedAt: 30, servingFirst: 11n }),
  ];
  it('answers the claims made by the end whose IDs can be handed out at the start', () => {
    const claims = retire(rows);
    expect(liveBetween(claims, 0, 15).map((c) => c.first)).toEqual([1n]);
    expect(liveBetween(claims, 31, 31).map((c) => c.first)).toEqual([1n, 11n, 21n]); // S1 ends at 30 + 1 ms grain
    expect(liveBetween(claims, 32, 1_000).map((c) => c.first)).toEqual([11n, 21n]);
    expect(liveBetween(claims, 0, 5)).toEqual([]);
  });

  it('prunes only rows done before the cut-off; a close row once its process has nothing left', () => {
    const close = row({
      first: 0n,
      last: 0n,
      claimedAt: 60,
      kind: 'close',
      bizTag: '',
      servingFirst: CLOSE_SERVING_FIRST,
      leasedMax: null,
    });
    expect(prunable(rows, 1_000)).toEqual([rows[0]!.id]);
    expect(prunable([...rows, close], 1_000).sort()).toEqual([...rows.map((r) => r.id), close.id].sort());
    expect(prunable([...rows, close], 100)).toEqual([rows[0]!.id]); // the tails (100 ms) of the rest run past it
  });
});

describe('ClaimLogPruner', () => {
  it('deletes, every `everyMs`, the rows done before now − days; a failing store is logged, not thrown', async () => {
    const clock = new FakeClock();
    const day = 86_400_000;
    const old = clock.now() - 2 * day;
    const rows = [
      row({ first: 1n, claimedAt: old }),
      row({ first: 11n, claimedAt: old + 10, servingFirst: 1n }),
      row({ first: 21n, claimedAt: old + 20, servingFirst: 11n }), // retires 1..10 (no lease: no tail)
    ];
    const deleted: number[][] = [];
    const events: string[] = [];
    let fail = false;
    const pruner = new ClaimLogPruner({
      log: {
        rowsBefore: async (before) => {
          if (fail) throw new Error('down');
          return rows.filter((r) => r.claimedAt < before);
        },
        deleteRows: async (ids) => (deleted.push([...ids]), ids.length),
      },
      clock,
      logger: { log: (_level, event) => events.push(event) },
      days: 1,
      everyMs: 3_600_000,
    });
    pruner.start();
    clock.advance(3_600_000);
    await flush();
    expect(deleted).toEqual([[rows[0]!.id]]);
    expect(events).toEqual(['claim_log_pruned']);
    fail = true;
    expect(await pruner.pruneOnce()).toBe(0);
    expect(events).toEqual(['claim_log_pruned', 'claim_log_prune_failed']);
    pruner.stop();
    expect(clock.pendingTimers).toBe(0);
  });
});
