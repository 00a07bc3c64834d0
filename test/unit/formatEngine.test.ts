/**
 * FormatEngine on a real SqliteStore (temp file), time from FakeClocks. Two engines — two nodes — share the file;
 * node B's clock is 5 s behind node A's. Both issue continuously across midnight in Asia/Shanghai and in
 * America/New_York (on its DST change days): no formatted ID twice, the new day starts at 1, and the behind node
 * serves the old day from the old day's counter for its 5 s. Also: buffers per period (the old period's are
 * dropped), the width cap's typed error, a wider sequence continuing, an unknown tag.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FormatEngine } from '@/lib/format/engine';
import { SqliteStore } from '@/lib/store/sqlite';
import type { AuditStamp } from '@/lib/audit';
import type { NewFormat } from '@/lib/format/formatStore';
import { FakeClock, flush } from '../support/fakes';
import { errorTextOf } from '../support/outcomes';

const stamp: AuditStamp = { actor: 'token:test', address: '127.0.0.1', nodeId: 'test', at: 0 };

let dir: string;
let store: SqliteStore;
const engines: FormatEngine[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leaf-format-engine-'));
  store = new SqliteStore({ file: path.join(dir, 'leaf.db') });
});
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close({ giveBack: false });
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Each node's successful claims: the period's name, its size, when (by the node's clock); and its failed ones. */
const claims = new Map<FormatEngine, Array<{ tag: string; step: number; at: number }>>();
const claimFailures = new Map<FormatEngine, number>();

async function node(clock: FakeClock): Promise<FormatEngine> {
  const log: Array<{ tag: string; step: number; at: number }> = [];
  const engine: FormatEngine = new FormatEngine({
    store: store.formats,
    clock,
    refreshIntervalMs: 0,
    onLoad: (tag, r) =>
      void (r.ok
        ? log.push({ tag, step: r.step, at: r.at })
        : claimFailures.set(engine, (claimFailures.get(engine) ?? 0) + 1)),
  });
  claims.set(engine, log);
  engines.push(engine);
  await engine.start();
  return engine;
}

async function one(engine: FormatEngine, bizTag: string): Promise<string> {
  return engine.nextId(bizTag);
}

/** What a call answers: `ok`, or `code status: message`; `p` may be a function, so a synchronous throw counts too. */
interface Issued {
  id: string;
  node: 'A' | 'B';
  /** The true time (node A's clock) when it was issued. */
  at: number;
}

describe.each([
  // Shanghai (UTC+8): its midnight 2026-12-03 00:00 is 2026-12-02T16:00Z.
  { zone: 'Asia/Shanghai', midnight: '2026-12-02T16:00:00Z', oldDay: '20261202', newDay: '20261203' },
  // New York on its fall-back day: the 25-hour 2026-11-01 ends at 2026-11-02T05:00Z.
  { zone: 'America/New_York', midnight: '2026-11-02T05:00:00Z', oldDay: '20261101', newDay: '20261102' },
  // And on its spring-forward day: the 23-hour 2026-03-08 begins at 2026-03-08T05:00Z.
  { zone: 'America/New_York', midnight: '2026-03-08T05:00:00Z', oldDay: '20260307', newDay: '20260308' },
])('two nodes 5 s apart across midnight in $zone ($newDay)', ({ zone, midnight, oldDay, newDay }) => {
  it('issue no formatted ID twice, start the new day at 1, and the behind node keeps the old day for 5 s', async () => {
    const step = 40;
    await store.formats.createFormat(
      { bizTag: 'ord', pattern: 'ORD-{yyyyMMdd}-{seq:6}', resetPeriod: 'daily', timeZone: zone, step },
      stamp,
    );
    const start = Date.parse(midnight) - 20_000;
    const clockA = new FakeClock(start);
    const clockB = new FakeClock(start - 5_000);
    const a = await node(clockA);
    const b = await node(clockB);
    const issued: Issued[] = [];
    // 40 s of traffic, a tick every 250 ms: each node takes 2 single IDs and a batch of 3 per tick.
    for (let tick = 0; tick < 160; tick++) {
      for (const [name, engine] of [
        ['A', a],
        ['B', b],
      ] as const) {
        const at = clockA.now();
        issued.push({ id: await one(engine, 'ord'), node: name, at }, { id: await one(engine, 'ord'), node: name, at });
        for (const id of await engine.takeIds('ord', 3)) issued.push({ id, node: name, at });
      }
      clockA.advance(250);
      clockB.advance(250);
      await flush();
    }
    const ids = issued.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(new RegExp(`^ORD-(${oldDay}|${newDay})-\\d{6}$`));

    const day = (i: Issued) => i.id.slice(4, 12);
    const seq = (i: Issued) => Number(i.id.slice(13));
    const fresh = issued.filter((i) => day(i) === newDay);
    // Node A crosses first and claims the new day's first segment: its first new-day ID is 000001.
    const firstA = fresh.find((i) => i.node === 'A') as Issued;
    const firstB = fresh.find((i) => i.node === 'B') as Issued;
    expect(firstA.id).toBe(`ORD-${newDay}-000001`);
    expect(firstA.at).toBe(Date.parse(midnight));
    // Node B crosses 5 s later (by the true clock) and claims the next segment of the same day, right above what
    // node A claimed of it by then (A's steps grow: segments used up in less than 15 minutes double the next).
    expect(firstB.at).toBe(Date.parse(midnight) + 5_000);
    const claimedByA = (claims.get(a) ?? []).filter((c) => c.tag === `ord@${newDay}` && c.at <= firstB.at);
    expect(claimedByA[0]!.step).toBe(step);
    expect(firstB.id).toBe(
      `ORD-${newDay}-${String(claimedByA.reduce((sum, c) => sum + c.step, 0) + 1).padStart(6, '0')}`,
    );
    // Each node's new-day numbers are increasing, and together they fill 1…n of the segments claimed, no holes
    // except the unused tails of the nodes' last segments.
    for (const n of ['A', 'B'] as const) {
      const mine = fresh.filter((i) => i.node === n).map(seq);
      expect(mine).toEqual([...mine].sort((x, y) => x - y));
    }
    // The behind node served the old day from the old day's counter during its 5 s: 20 ticks × 5 IDs.
    const behind = issued.filter((i) => i.node === 'B' && day(i) === oldDay && i.at >= Date.parse(midnight));
    expect(behind).toHaveLength(100);
    const oldSeqs = issued.filter((i) => day(i) === oldDay).map(seq);
    expect(new Set(oldSeqs).size).toBe(oldSeqs.length);
    expect(Math.min(...oldSeqs)).toBe(1);

    const periods = await store.formats.listFormatPeriods('ord');
    expect(periods.map((p) => p.periodKey)).toEqual([newDay, oldDay]);
    // The database counted every number served: each period's max_id is at least its highest ID.
    expect(periods[0]!.maxId).toBeGreaterThanOrEqual(Math.max(...fresh.map(seq)));
    // Both nodes have dropped the old day's buffers by now (its IDs are no longer served anywhere).
    expect(a.heldPeriods()).toEqual([`ord@${newDay}`]);
    expect(b.heldPeriods()).toEqual([`ord@${newDay}`]);
  });
});

describe('FormatEngine', () => {
  const base: NewFormat = {
    bizTag: 'inv',
    pattern: 'INV{yyyy}-{seq:2}',
    resetPeriod: 'yearly',
    timeZone: 'UTC',
    step: 30,
  };

  it('answers sequence_exhausted (503) at the width cap, never a wider or wrapped number; a wider seq continues', async () => {
    await store.formats.createFormat(base, stamp);
    const clock = new FakeClock(Date.parse('2026-06-01T00:00:00Z'));
    const engine = await node(clock);
    const ids = [...(await engine.takeIds('inv', 90)), ...(await engine.takeIds('inv', 9))];
    expect(ids[0]).toBe('INV2026-01');
    expect(ids[98]).toBe('INV2026-99');
    const refusal = await errorTextOf(one(engine, 'inv'));
    // Known used up: later requests are refused at once, without another claim or its log line.
    const failedClaims = () => claimFailures.get(engine) ?? 0;
    const before = failedClaims();
    for (let i = 0; i < 5; i++) expect(await errorTextOf(one(engine, 'inv'))).toContain('sequence_exhausted');
    expect(failedClaims()).toBe(before);
    expect(refusal).toBe(
      'sequence_exhausted 503: Formatted tag "inv" has used every number of period 2026 (yearly reset): {seq:2} ends at 99. No ID until the next period, or widen the sequence.',
    );
    expect(await errorTextOf(async () => engine.takeIds('inv', 2))).toContain('sequence_exhausted 503');
    // The next year counts from 1 again.
    clock.advance(Date.parse('2027-01-01T00:00:00Z') - clock.now());
    expect(await one(engine, 'inv')).toBe('INV2027-01');
    // A node whose clock is still in 2026 finds that year used up.
    const late = await node(new FakeClock(Date.parse('2026-12-31T23:59:59Z')));
    expect(await errorTextOf(one(late, 'inv'))).toContain('sequence_exhausted');
    await store.formats.updateFormat('inv', { pattern: 'INV{yyyy}-{seq:3}' }, stamp);
    await late.refreshFormats();
    expect(await one(late, 'inv')).toBe('INV2026-100');
  });

  it("keeps a buffer per period: the old period's numbers are not served in the new one, and are dropped", async () => {
    await store.formats.createFormat(
      { ...base, bizTag: 'm', pattern: 'M{yyyyMM}{seq:4}', resetPeriod: 'monthly' },
      stamp,
    );
    const clock = new FakeClock(Date.parse('2026-01-31T23:59:59Z'));
    const engine = await node(clock);
    expect(await one(engine, 'm')).toBe('M2026010001');
    expect(engine.snapshot('m')).toEqual({ bizTag: 'm', periodKey: '202601', buffered: 29 });
    clock.advance(1_000);
    expect(await one(engine, 'm')).toBe('M2026020001');
    expect(engine.heldPeriods()).toEqual(['m@202601', 'm@202602']);
    clock.advance(5_000);
    await flush();
    expect(engine.heldPeriods()).toEqual(['m@202602']);
    expect((await store.formats.listFormatPeriods('m')).map((p) => [p.periodKey, p.maxId])).toEqual([
      ['202602', 30],
      ['202601', 30],
    ]);
  });

  it("a graceful close gives back the unused top of the period's latest claim; the next node continues right after", async () => {
    await store.formats.createFormat(
      { ...base, bizTag: 'g', pattern: 'G{yyyyMMdd}{seq:6}', resetPeriod: 'daily' },
      stamp,
    );
    const clock = new FakeClock(Date.parse('2026-12-02T10:00:00Z'));
    const first = await node(clock);
    const ids = await first.takeIds('g', 12);
    expect(ids[11]).toBe('G20261202000012');
    engines.splice(engines.indexOf(first), 1);
    await flush(); // the preload has landed (installed as the pending segment)
    const given = await first.close({ giveBack: true });
    expect(given.map((g) => [g.bizTag, g.first, g.maxIdAfter])).toEqual([['g@20261202', '13', '12']]);
    expect((await store.formats.listFormatPeriods('g'))[0]!.maxId).toBe(12);
    const second = await node(clock);
    expect(await one(second, 'g')).toBe('G20261202000013');
  });

  it("a never-resetting format has one counter; an unknown tag is a 404 in the formatted tag's words", async () => {
    await store.formats.createFormat({ ...base, bizTag: 'n', pattern: 'N{seq:5}', resetPeriod: 'never' }, stamp);
    const clock = new FakeClock(Date.parse('2026-12-31T23:59:59Z'));
    const engine = await node(clock);
    expect(await one(engine, 'n')).toBe('N00001');
    clock.advance(2_000);
    expect(await one(engine, 'n')).toBe('N00002');
    expect((await store.formats.listFormatPeriods('n')).map((p) => p.periodKey)).toEqual(['']);
    expect(await errorTextOf(one(engine, 'nope'))).toBe('tag_not_found 404: Formatted tag "nope" does not exist.');
  });
});
