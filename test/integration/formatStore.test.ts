/**
 * leaf_format and leaf_format_period on MysqlStore (real MariaDB), PostgresStore (real PostgreSQL) and SqliteStore
 * (real file), the same cases: a claim creates the period's row and moves max_id up, clips at the width's cap and then claims nothing;
 * first claims of a fresh period racing from several connections never overlap; creating, editing (only a wider
 * sequence), deleting and re-creating (same shape, continuing above the kept periods) with their audit rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MysqlStore } from '../../lib/store/mysql';
import { PostgresStore } from '../../lib/store/postgres';
import { SqliteStore } from '../../lib/store/sqlite';
import type { AuditStamp } from '../../lib/audit';
import type { LeafStore } from '../../lib/store/leafStore';
import type { PeriodClaim } from '../../lib/format/formatStore';
import { type TempDir, freshMysqlDatabase, freshPgDatabase, tempDir } from '../support/context';
import { codeOf } from '../support/outcomes';

/** `open()` gives one more store (its own pool or connection) on the same database. */
interface Harness {
  open(): Promise<LeafStore>;
}

let tmp: TempDir;
const closers: Array<() => Promise<void>> = [];
beforeAll(() => {
  tmp = tempDir('leaf-it-formats-');
});
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  tmp?.remove();
});

const factories: Record<'mysql' | 'postgres' | 'sqlite', () => Promise<Harness>> = {
  async postgres() {
    const db = await freshPgDatabase();
    closers.push(() => db.drop());
    return {
      async open() {
        const store = await PostgresStore.open({ url: db.url, connectionLimit: 4 });
        closers.push(() => store.close());
        return store;
      },
    };
  },
  async mysql() {
    const db = await freshMysqlDatabase();
    closers.push(() => db.drop());
    return {
      async open() {
        const store = await MysqlStore.open({ url: db.url, connectionLimit: 4 });
        closers.push(() => store.close());
        return store;
      },
    };
  },
  async sqlite() {
    const file = tmp.file(`formats-${closers.length}.db`);
    return {
      async open() {
        const store = new SqliteStore({ file });
        closers.push(() => store.close());
        return store;
      },
    };
  },
};

const stamp = (at: number): AuditStamp => ({ actor: 'token:abcdef01', address: '127.0.0.1', nodeId: 'n1', at });

const claimed = (c: PeriodClaim): number[] => Array.from({ length: c.count }, (_, i) => c.lastSeq - c.count + 1 + i);

for (const dialect of ['sqlite', 'mysql', 'postgres'] as const) {
  describe(`leaf_format on ${dialect}`, () => {
    it('claims a fresh period from 1, then above it, clipped at the cap, then nothing', async () => {
      const store = await (await factories[dialect]()).open();
      expect(await store.formats.claimPeriod('ord', '20261202', 40, 99)).toEqual({ lastSeq: 40, count: 40 });
      expect(await store.formats.claimPeriod('ord', '20261202', 40, 99)).toEqual({ lastSeq: 80, count: 40 });
      // Another period and another tag count on their own.
      expect(await store.formats.claimPeriod('ord', '20261203', 10, 99)).toEqual({ lastSeq: 10, count: 10 });
      expect(await store.formats.claimPeriod('inv', '20261202', 5, 99)).toEqual({ lastSeq: 5, count: 5 });
      expect(await store.formats.claimPeriod('ord', '20261202', 40, 99)).toEqual({ lastSeq: 99, count: 19 });
      expect(await store.formats.claimPeriod('ord', '20261202', 40, 99)).toEqual({ lastSeq: 99, count: 0 });
      expect(await store.formats.claimPeriod('ord', '20261202', 1, 99)).toEqual({ lastSeq: 99, count: 0 });
      // A step above the cap on a fresh period: clipped to the cap.
      expect(await store.formats.claimPeriod('tiny', '', 1000, 9)).toEqual({ lastSeq: 9, count: 9 });
      const periods = await store.formats.listFormatPeriods('ord');
      expect(periods.map((p) => [p.periodKey, p.maxId, p.step])).toEqual([
        ['20261203', 10, 10],
        ['20261202', 99, 0],
      ]);
      expect(periods[0]!.updateTime).toBeGreaterThan(Date.now() - 60_000);
      expect((await store.formats.listFormatPeriods('ord', ['20261202'])).map((p) => p.periodKey)).toEqual([
        '20261202',
      ]);
      // Give-back is a compare-and-set on the period's max_id.
      expect(await store.formats.giveBackPeriod('ord', '20261203', 9, 5)).toBe(false);
      expect(await store.formats.giveBackPeriod('ord', '20261203', 10, 5)).toBe(true);
      expect(await store.formats.claimPeriod('ord', '20261203', 10, 99)).toEqual({ lastSeq: 15, count: 10 });
    });

    it('first claims of a fresh period from several connections at once never overlap', async () => {
      const h = await factories[dialect]();
      const stores = await Promise.all([h.open(), h.open(), h.open(), h.open()]);
      const rounds = 25;
      const step = 7;
      const claims = await Promise.all(
        stores.flatMap((store) =>
          Array.from({ length: rounds }, () => store.formats.claimPeriod('race', '20270101', step, 999_999)),
        ),
      );
      const numbers = claims.flatMap(claimed).sort((a, b) => a - b);
      expect(claims.every((c) => c.count === step)).toBe(true);
      expect(new Set(numbers).size).toBe(numbers.length);
      // Contiguous from 1: nothing claimed twice, nothing skipped.
      expect(numbers).toEqual(Array.from({ length: stores.length * rounds * step }, (_, i) => i + 1));
    });

    it('creates, edits only a wider sequence, deletes keeping the periods, re-creates with the same shape', async () => {
      const store = await (await factories[dialect]()).open();
      const base = {
        bizTag: 'ord',
        pattern: 'ORD-{yyyyMMdd}-{seq:4}',
        resetPeriod: 'daily',
        timeZone: 'Asia/Shanghai',
        step: 100,
      } as const;
      const created = await store.formats.createFormat({ ...base, description: 'orders' }, stamp(1));
      expect(created).toMatchObject({ ...base, description: 'orders' });
      expect(await codeOf(store.formats.createFormat(base, stamp(2)))).toBe('tag_exists');
      expect(await store.formats.listFormats()).toEqual([created]);

      expect(await codeOf(store.formats.updateFormat('ord', { pattern: 'ORD-{yyyyMMdd}-{seq:3}' }, stamp(3)))).toBe(
        'format_conflict',
      );
      expect(await codeOf(store.formats.updateFormat('ord', { pattern: 'ORD-{yyyyMM}-{seq:4}' }, stamp(3)))).toBe(
        'format_conflict',
      );
      const edited = await store.formats.updateFormat(
        'ord',
        { pattern: 'ORD-{yyyyMMdd}-{seq:5}', timeZone: 'UTC', step: 50 },
        stamp(4),
      );
      expect(edited).toMatchObject({
        pattern: 'ORD-{yyyyMMdd}-{seq:5}',
        timeZone: 'UTC',
        step: 50,
        description: 'orders',
      });
      expect(await codeOf(store.formats.updateFormat('nope', { step: 5 }, stamp(5)))).toBe('tag_not_found');

      await store.formats.claimPeriod('ord', '20261202', 50, 99_999);
      await store.formats.deleteFormat('ord', stamp(6));
      expect(await store.formats.getFormat('ord')).toBeUndefined();
      expect(await store.formats.listFormats()).toEqual([]);
      expect(await codeOf(store.formats.deleteFormat('ord', stamp(7)))).toBe('tag_not_found');
      expect((await store.formats.listFormatPeriods('ord')).map((p) => p.maxId)).toEqual([50]);

      const refused = await codeOf(
        store.formats.createFormat({ ...base, resetPeriod: 'monthly', pattern: 'ORD-{yyyyMMdd}-{seq:5}' }, stamp(8)),
      );
      expect(refused).toBe('format_conflict');
      expect(await codeOf(store.formats.createFormat({ ...base, pattern: 'X-{yyyyMMdd}-{seq:5}' }, stamp(8)))).toBe(
        'format_conflict',
      );
      const again = await store.formats.createFormat({ ...base, pattern: 'ORD-{yyyyMMdd}-{seq:6}' }, stamp(9));
      expect(again).toMatchObject({ pattern: 'ORD-{yyyyMMdd}-{seq:6}', description: null });
      expect(await store.formats.claimPeriod('ord', '20261202', 10, 999_999)).toEqual({ lastSeq: 60, count: 10 });

      const audit = await store.audit.listAudit({ limit: 10, bizTag: 'ord' });
      expect(audit.map((e) => e.action)).toEqual(['format.create', 'format.delete', 'format.edit', 'format.create']);
      expect(audit[2]!.before).toMatchObject({ pattern: 'ORD-{yyyyMMdd}-{seq:4}', timeZone: 'Asia/Shanghai' });
      expect(audit[2]!.after).toMatchObject({ pattern: 'ORD-{yyyyMMdd}-{seq:5}', timeZone: 'UTC' });
    });
  });
}
