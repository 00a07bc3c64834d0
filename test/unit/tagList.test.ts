import type { TagPageQuery } from '@/lib/segment/tagStore';
import { describe, expect, it } from 'vitest';
import { listTags } from '@/lib/admin/service';
import { TAG_LIST_MAX_LIMIT, parseTagListQuery } from '@/lib/admin/tagList';
import { isLeafError } from '@/lib/errors';
import { countIn, leaseCountIn } from '@/lib/http/count';
import { LoadLog } from '@/lib/metrics/loadLog';
import { RateTracker } from '@/lib/metrics/rateTracker';
import { SegmentEngine } from '@/lib/segment/engine';
import type { TagRow } from '@/lib/segment/tagStore';
import { FakeClock, FakeStore } from '../support/fakes';

const q = (s: string) => parseTagListQuery(new URLSearchParams(s));

function badParams(s: string): string[] {
  try {
    q(s);
  } catch (error) {
    if (isLeafError(error) && error.code === 'invalid_request') return Object.keys(error.fields ?? {});
    throw error;
  }
  return [];
}

describe('tag list query', () => {
  it('defaults to the first 50 by name, ascending', () => {
    expect(q('')).toEqual({ q: '', sort: 'name', descending: false, offset: 0, limit: 50 });
    expect(q('q=%20Ord%20&sort=-rate&offset=100&limit=500')).toEqual({
      q: 'ord',
      sort: 'rate',
      descending: true,
      offset: 100,
      limit: 500,
    });
  });

  it('refuses bad values with a 400 naming each parameter', () => {
    expect(badParams('sort=size')).toEqual(['sort']);
    expect(badParams('sort=--rate')).toEqual(['sort']);
    expect(badParams(`limit=${TAG_LIST_MAX_LIMIT + 1}&offset=-1`).sort()).toEqual(['limit', 'offset']);
    expect(badParams('limit=0')).toEqual(['limit']);
    expect(badParams('limit=1e2')).toEqual(['limit']);
    expect(badParams(`q=${'x'.repeat(129)}`)).toEqual(['q']);
  });

  it('says what a bad value should be in words an operator reads', () => {
    const fields = (s: string) => {
      try {
        q(s);
      } catch (error) {
        return isLeafError(error) ? error.fields : undefined;
      }
    };
    expect(fields('offset=-1')).toEqual({ offset: 'A whole number of at least 0.' });
    expect(fields('limit=501')).toEqual({ limit: 'A whole number from 1 to 500.' });
  });
});

describe('count limits', () => {
  it('read alike in every message: with separators', () => {
    const message = (read: () => number) => {
      try {
        read();
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(message(() => countIn('/x?count=10001', 2))).toBe('count must be a whole number from 1 to 10,000.');
    expect(message(() => leaseCountIn('/x?count=10000001', 2))).toBe(
      'count must be a whole number from 1 to 10,000,000.',
    );
  });
});

describe('tag list page', () => {
  async function fixture() {
    const clock = new FakeClock();
    const tags = Array.from({ length: 120 }, (_, i) => ({
      bizTag: `t${String(i).padStart(3, '0')}`,
      step: 100,
      maxId: 1000 + i,
    }));
    const store = new FakeStore(tags);
    const rows = (): TagRow[] =>
      [...store.rows].map(([bizTag, r]) => ({
        bizTag,
        maxId: r.maxId,
        step: r.step,
        description: bizTag.endsWith('7') ? 'Seven Orders' : null,
        updateTime: new Date(Number(r.maxId)),
      }));
    const segments = new SegmentEngine({ store, clock, refreshIntervalMs: 0 });
    await segments.start();
    const rates = new RateTracker({ clock });
    rates.record(segments.issuedTotals());
    // t005 busy, t010 slower, t020 slower still: rates 50, 20, 5 IDs/s over 2 s.
    await segments.takeIds('t005', 100);
    await segments.takeIds('t010', 40);
    await segments.takeIds('t020', 10);
    clock.advance(2_000);
    rates.record(segments.issuedTotals());
    return {
      store: {
        tags: {
          listTagRows: async () => rows(),
          // The database's page (its SQL: test/integration/tagPage.test.ts), here over the same rows.
          tagRowsPage: async ({ q: text, descending, offset, limit }: TagPageQuery) => {
            const all = rows().sort((a, b) => (a.bizTag < b.bizTag ? -1 : 1) * (descending ? -1 : 1));
            const hit = all.filter(
              (r) => r.bizTag.toLowerCase().includes(text) || (r.description ?? '').toLowerCase().includes(text),
            );
            return { rows: hit.slice(offset, offset + limit), matching: hit.length, total: all.length };
          },
          listEncodings: async () => new Map(),
        },
        semantics: { getSemantics: () => store.getSemantics() },
        order: { readOrder: async () => ({ rows: [], dbNowMs: 0 }) },
      } as never,
      segments,
      console: { rates, loadLog: new LoadLog() },
    };
  }

  it('pages by name with totals over every tag', async () => {
    const rt = await fixture();
    const page = await listTags(rt, q('offset=100&limit=50'));
    expect(page.tags.map((t) => t.bizTag)).toEqual(Array.from({ length: 20 }, (_, i) => `t${100 + i}`));
    expect(page).toMatchObject({
      total: 120,
      offset: 100,
      limit: 50,
      totals: { tags: 120, loaded: 3, ratePerSec: 75 },
    });
  });

  it('searches tag and description, case-insensitively', async () => {
    const rt = await fixture();
    const page = await listTags(rt, q('q=SEVEN&limit=500'));
    expect(page.total).toBe(12);
    expect(page.tags.every((t) => t.bizTag.endsWith('7'))).toBe(true);
    expect((await listTags(rt, q('q=t11'))).tags.map((t) => t.bizTag)).toEqual(
      Array.from({ length: 10 }, (_, i) => `t11${i}`),
    );
    expect(page.totals.tags).toBe(120);
  });

  it('sorts by rate, runway, remaining, maxId and updated; idle and unloaded tags last either way', async () => {
    const rt = await fixture();
    const first = async (s: string, n = 3) => (await listTags(rt, q(`sort=${s}&limit=${n}`))).tags.map((t) => t.bizTag);
    expect(await first('-rate')).toEqual(['t005', 't010', 't020']);
    // Runway: t005 holds 100 (its 2nd segment) at 50/s = 2 s; t010 holds 60 + 100 at 20/s = 8 s; t020 190 at 5/s = 38 s.
    expect(await first('runway')).toEqual(['t005', 't010', 't020']);
    expect(await first('-runway')).toEqual(['t020', 't010', 't005']);
    expect((await listTags(rt, q('sort=-runway&limit=4'))).tags[3]!.bizTag).toBe('t000');
    expect(await first('remaining')).toEqual(['t005', 't010', 't020']);
    expect(await first('maxId', 2)).toEqual(['t000', 't001']); // the loaded tags' rows moved up by their claims
    expect(await first('-maxId', 1)).toEqual(['t020']); // 1020 + two segments
    expect(await first('updated', 1)).toEqual(['t000']);
  });
});
