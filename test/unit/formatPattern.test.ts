/**
 * lib/format: pattern syntax (widths, literals, escaped braces, every date part), rendering, the reset rules, and
 * period keys across midnight in two zones, one of them on its DST change days.
 */
import { describe, expect, it } from 'vitest';
import { DATE_TOKENS, idRenderer, parsePattern, patternShape, sequenceCap } from '../../lib/format/pattern';
import { canonicalTimeZone, dateFields, periodKey } from '../../lib/format/period';
import { changeProblem, checkFormat } from '../../lib/format/rules';

function parsed(source: string) {
  const result = parsePattern(source);
  if (!result.ok) throw new Error(result.error);
  return result.pattern;
}

const FIELDS = { yyyy: '2026', yy: '26', MM: '12', dd: '02', HH: '07', mm: '08', ss: '09' } as const;

describe('parsePattern and idRenderer', () => {
  it.each([
    ['ORD-{yyyyMMdd}-{seq:6}', 1, 'ORD-20261202-000001'],
    ['ORD-{yyyyMMdd}-{seq:6}', 999_999, 'ORD-20261202-999999'],
    ['{seq:1}', 7, '7'],
    ['{yy}{MM}{dd}{HH}{mm}{ss}#{seq:3}', 42, '261202070809#042'],
    ['{{literal}}-{yyyy}-{seq:4}-}}', 5, '{literal}-2026-0005-}'],
    ['{seq:15}', 123_456_789_012_345, '123456789012345'],
    ['订单{yyyy}{seq:2}', 3, '订单202603'],
  ])('%s with %d renders %s', (source, seq, id) => {
    expect(idRenderer(parsed(source), FIELDS)(seq)).toBe(id);
  });

  it('knows every date part and its width', () => {
    const p = parsed(DATE_TOKENS.map((t) => `{${t}}`).join('|') + '|{seq:2}');
    expect([...p.tokens].sort()).toEqual([...DATE_TOKENS].sort());
    expect(idRenderer(p, FIELDS)(1)).toBe('2026|26|12|02|07|08|09|01');
  });

  it.each([
    ['', 'empty'],
    ['ORD-{seq}', 'width N from 1 to 15'],
    ['ORD-{seq:0}', 'width N from 1 to 15'],
    ['ORD-{seq:16}', 'width N from 1 to 15'],
    ['ORD-{yyyy}', 'needs a sequence'],
    ['{seq:2}{seq:3}', 'only one'],
    ['A{yyyy-MM}{seq:2}', 'not a date part'],
    ['A{YYYY}{seq:2}', 'not a date part'],
    ['A{yyyy{seq:2}', 'not a date part'],
    ['A}{seq:2}', 'lone "}"'],
    ['A{seq:2', 'not closed'],
    ['A{}{seq:2}', 'empty {}'],
    ['A\n{seq:2}', 'control character'],
    ['x'.repeat(250) + '{seq:6}', 'longer than 256'],
  ])('refuses %j (%s)', (source, message) => {
    const result = parsePattern(source);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });

  it('refuses a sequence number the width cannot hold, never widening or wrapping it', () => {
    const render = idRenderer(parsed('A{seq:3}'), FIELDS);
    expect(render(sequenceCap(3))).toBe('A999');
    expect(() => render(1000)).toThrow(RangeError);
    expect(() => render(0)).toThrow(RangeError);
  });

  it('a shape leaves out only the width', () => {
    expect(patternShape(parsed('A{yyyyMMdd}{seq:4}'))).toBe('A{yyyy}{MM}{dd}{seq}');
    expect(patternShape(parsed('{{x}}{seq:9}'))).toBe('{{x}}{seq}');
  });
});

describe('reset rules', () => {
  it.each([
    ['daily', 'D{yyyy}{MM}{dd}{seq:3}', null],
    ['daily', 'D{yyyy}{MM}{seq:3}', '{dd}'],
    ['daily', 'D{yy}{MM}{dd}{seq:3}', '{yyyy}'],
    ['monthly', 'M{yyyyMM}{seq:3}', null],
    ['monthly', 'M{yyyy}{seq:3}', '{MM}'],
    ['yearly', 'Y{yy}{seq:3}', '{yy} alone does not name a year'],
    ['yearly', 'Y{yyyy}{seq:3}', null],
    ['never', 'N{seq:3}', null],
  ] as const)('%s with %s', (reset, pattern, problem) => {
    const result = checkFormat(pattern, reset);
    if (problem === null) expect(result.ok).toBe(true);
    else expect(result.ok ? 'accepted' : result.error).toContain(problem);
  });

  it('an edit may only widen the sequence', () => {
    const before = { pattern: 'ORD-{yyyyMMdd}-{seq:6}', resetPeriod: 'daily' } as const;
    expect(changeProblem(before, { ...before, pattern: 'ORD-{yyyyMMdd}-{seq:7}' })).toBeNull();
    expect(changeProblem(before, { ...before, pattern: 'ORD-{yyyy}{MM}{dd}-{seq:6}' })).toBeNull();
    expect(changeProblem(before, { ...before, pattern: 'ORD-{yyyyMMdd}-{seq:5}' })).toContain('not shrink');
    expect(changeProblem(before, { ...before, pattern: 'ORX-{yyyyMMdd}-{seq:6}' })).toContain('stays');
    expect(changeProblem(before, { ...before, resetPeriod: 'monthly' })).toContain('reset period stays daily');
  });
});

/** ms of a wall-clock UTC instant. */
const utc = (iso: string): number => Date.parse(iso);

describe('period keys across midnight', () => {
  const shanghai = canonicalTimeZone('asia/shanghai') as string;
  const newYork = canonicalTimeZone('America/New_York') as string;

  it('names zones canonically and refuses unknown ones', () => {
    expect(shanghai).toBe('Asia/Shanghai');
    expect(canonicalTimeZone('Mars/Olympus')).toBeUndefined();
    expect(canonicalTimeZone('')).toBeUndefined();
  });

  it.each([
    // Asia/Shanghai is UTC+8, no DST: its midnight is 16:00 UTC.
    ['Asia/Shanghai', '2026-12-02T15:59:59.999Z', '20261202', '202612', '2026'],
    ['Asia/Shanghai', '2026-12-02T16:00:00.000Z', '20261203', '202612', '2026'],
    ['Asia/Shanghai', '2026-12-31T15:59:59.999Z', '20261231', '202612', '2026'],
    ['Asia/Shanghai', '2026-12-31T16:00:00.000Z', '20270101', '202701', '2027'],
    // New York, EST (UTC−5): midnight is 05:00 UTC.
    ['America/New_York', '2026-12-03T04:59:59.999Z', '20261202', '202612', '2026'],
    ['America/New_York', '2026-12-03T05:00:00.000Z', '20261203', '202612', '2026'],
    // 2026-03-08: clocks jump 02:00 → 03:00 EST→EDT. The day starts at 05:00 UTC, the next at 04:00 UTC (23 h).
    ['America/New_York', '2026-03-08T04:59:59.999Z', '20260307', '202603', '2026'],
    ['America/New_York', '2026-03-08T05:00:00.000Z', '20260308', '202603', '2026'],
    ['America/New_York', '2026-03-08T07:30:00.000Z', '20260308', '202603', '2026'],
    ['America/New_York', '2026-03-09T03:59:59.999Z', '20260308', '202603', '2026'],
    ['America/New_York', '2026-03-09T04:00:00.000Z', '20260309', '202603', '2026'],
    // 2026-11-01: 02:00 EDT → 01:00 EST, a 25-hour day from 04:00 UTC to 05:00 UTC the next day.
    ['America/New_York', '2026-11-01T03:59:59.999Z', '20261031', '202610', '2026'],
    ['America/New_York', '2026-11-01T04:00:00.000Z', '20261101', '202611', '2026'],
    ['America/New_York', '2026-11-02T04:59:59.999Z', '20261101', '202611', '2026'],
    ['America/New_York', '2026-11-02T05:00:00.000Z', '20261102', '202611', '2026'],
  ])('%s at %s', (zone, iso, daily, monthly, yearly) => {
    const fields = dateFields(zone, utc(iso));
    expect(periodKey('daily', fields)).toBe(daily);
    expect(periodKey('monthly', fields)).toBe(monthly);
    expect(periodKey('yearly', fields)).toBe(yearly);
    expect(periodKey('never', fields)).toBe('');
  });

  it('one instant, two zones, two days', () => {
    const at = utc('2026-12-02T20:00:00Z');
    expect(periodKey('daily', dateFields(shanghai, at))).toBe('20261203');
    expect(periodKey('daily', dateFields(newYork, at))).toBe('20261202');
    expect(dateFields(shanghai, at)).toMatchObject({ HH: '04', mm: '00', ss: '00' });
    expect(dateFields(newYork, at)).toMatchObject({ HH: '15', mm: '00', ss: '00' });
  });

  it('midnight reads 00, never 24', () => {
    expect(dateFields('Asia/Shanghai', utc('2026-12-02T16:00:00Z')).HH).toBe('00');
  });
});

describe("previewIds (the console's live preview)", () => {
  const at = Date.parse('2026-12-02T16:30:00Z');
  it('renders the current period in the zone, from 1 or above a known count', async () => {
    const { previewIds } = await import('../../lib/format/preview');
    const base = {
      pattern: 'ORD-{yyyyMMdd}-{seq:4}',
      resetPeriod: 'daily',
      timeZone: 'Asia/Shanghai',
      now: at,
      count: 3,
    } as const;
    expect(previewIds(base)).toEqual({
      ok: true,
      periodKey: '20261203',
      ids: ['ORD-20261203-0001', 'ORD-20261203-0002', 'ORD-20261203-0003'],
      exhausted: false,
    });
    expect(previewIds({ ...base, timeZone: 'America/New_York' })).toMatchObject({
      periodKey: '20261202',
      ids: ['ORD-20261202-0001', 'ORD-20261202-0002', 'ORD-20261202-0003'],
    });
    expect(previewIds({ ...base, known: { periodKey: '20261203', maxId: 41 } })).toMatchObject({
      ids: ['ORD-20261203-0042', 'ORD-20261203-0043', 'ORD-20261203-0044'],
    });
    // A count of another period (yesterday's) does not apply.
    expect(previewIds({ ...base, known: { periodKey: '20261202', maxId: 41 } })).toMatchObject({
      ids: ['ORD-20261203-0001', 'ORD-20261203-0002', 'ORD-20261203-0003'],
    });
    expect(previewIds({ ...base, known: { periodKey: '20261203', maxId: 9998 } })).toMatchObject({
      ids: ['ORD-20261203-9999'],
      exhausted: true,
    });
    expect(previewIds({ ...base, pattern: 'ORD-{yyyyMM}-{seq:4}' })).toMatchObject({ ok: false, field: 'pattern' });
    expect(previewIds({ ...base, timeZone: 'Nowhere/Town' })).toMatchObject({ ok: false, field: 'timeZone' });
  });
});
