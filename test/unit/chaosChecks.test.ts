/**
 * The chaos suite's checks (tools/chaos/checks.ts) on a Recorder fed by hand: they find a formatted ID seen twice
 * (a repeat, an overlapping batch) and leave distinct ones alone (the same sequence number on another date is
 * another ID); formatted answers keep per-node order within a period; a malformed formatted answer is refused;
 * `sequence_exhausted` is never an acceptable 503 for the chaos format.
 */
import { describe, expect, it } from 'vitest';
import { expected503, formattedDuplicates, formattedOrder, segmentDuplicates } from '../../tools/chaos/checks';
import { parseFormatted } from '../../tools/chaos/formatted';
import { type Kind, Recorder } from '../../tools/chaos/record';

const NODES = ['n1', 'n2', 'n3'];
/** 2026-12-03 10:00 in Asia/Shanghai (UTC+8), the chaos format's zone. */
const MORNING = Date.UTC(2026, 11, 3, 2, 0, 0);
/** The last moment of 2026-12-03 in Asia/Shanghai. */
const MIDNIGHT = Date.UTC(2026, 11, 3, 16, 0, 0);

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);

function feed(
  answers: Array<{ node?: number; period?: string; seqs: number[]; kind?: Kind; sendT?: number; recvT?: number }>,
): Recorder {
  const rec = new Recorder();
  answers.forEach((a, k) => {
    const sendT = a.sendT ?? MORNING + 10 * k;
    rec.addFormatted(
      a.kind ?? (a.seqs.length > 1 ? 'fmtN' : 'fmt'),
      a.node ?? 0,
      1,
      sendT,
      a.recvT ?? sendT + 5,
      a.period ?? '20261203',
      a.seqs,
    );
  });
  return rec;
}

describe('formattedDuplicates', () => {
  it('finds nothing among distinct IDs, across nodes, batches and periods', () => {
    const rec = feed([
      { node: 0, seqs: range(1, 50) },
      { node: 1, seqs: range(51, 100) },
      { node: 2, seqs: [101] },
      { node: 0, seqs: [1], period: '20261204' },
    ]);
    expect(formattedDuplicates(rec)).toEqual({ duplicates: 0, examples: [], ranges: 4, periods: 2 });
    expect(rec.fmtIds).toBe(102);
  });

  it('finds one formatted ID answered twice (a single repeated by another node)', () => {
    const rec = feed([
      { node: 0, seqs: range(1, 50) },
      { node: 1, seqs: [51] },
      { node: 2, seqs: [51] },
    ]);
    const report = formattedDuplicates(rec);
    expect(report.duplicates).toBe(1);
    expect(report.examples).toEqual(['period 20261203: sequence 51..51 overlaps numbers up to 51']);
  });

  it('counts every ID of a batch that overlaps another batch of the same period', () => {
    const rec = feed([
      { node: 0, seqs: range(1, 100) },
      { node: 1, seqs: range(91, 120) },
      { node: 2, seqs: range(91, 120), period: '20261204' },
    ]);
    expect(formattedDuplicates(rec).duplicates).toBe(10);
  });

  it('keeps a non-contiguous batch as several ranges and flags one that is not increasing', () => {
    const rec = feed([{ seqs: [1, 2, 3, 7, 8] }, { seqs: [9, 9] }]);
    expect(formattedDuplicates(rec)).toMatchObject({ duplicates: 1, ranges: 4 });
    expect(rec.badCount).toBe(1);
    expect(rec.badAnswers[0]).toMatch(/^formatted batch from node 0 not strictly increasing at index 1: 9 then 9$/);
  });

  it('leaves the segment check as it was (the sweep is shared)', () => {
    const rec = new Recorder();
    rec.addSegment('segN', 0, 1, 0, 1, range(1, 10));
    rec.addSegment('seg', 1, 1, 2, 3, [10]);
    expect(segmentDuplicates(rec)).toEqual({ duplicates: 1, examples: ['10..10 overlaps IDs up to 10'] });
  });
});

describe('formattedOrder', () => {
  it('flags a node answering below its own earlier answer in the same period', () => {
    const rec = feed([
      { node: 0, seqs: range(101, 150), sendT: MORNING, recvT: MORNING + 5 },
      { node: 0, seqs: [60], sendT: MORNING + 10, recvT: MORNING + 12 },
    ]);
    const report = formattedOrder(rec.ok, NODES);
    expect(report).toMatchObject({ checked: 2, violations: 1 });
    expect(report.examples[0]).toMatch(/^period 20261203: n1: life 1 fmt sent .* got 60, but life 1 fmtN answered 150/);
  });

  it('does not order a new period against the old one, nor concurrent requests or other nodes', () => {
    const rec = feed([
      { node: 0, seqs: range(101, 150), sendT: MIDNIGHT - 20, recvT: MIDNIGHT - 10 },
      { node: 0, seqs: [1], period: '20261204', sendT: MIDNIGHT + 5, recvT: MIDNIGHT + 6 },
      { node: 1, seqs: [60], sendT: MIDNIGHT - 5, recvT: MIDNIGHT - 4 },
      { node: 0, seqs: [99], sendT: MIDNIGHT - 15, recvT: MIDNIGHT - 14 },
    ]);
    expect(formattedOrder(rec.ok, NODES)).toMatchObject({ checked: 4, violations: 0 });
  });
});

describe('parseFormatted (the load loops’ well-formedness check)', () => {
  it('reads the date and the sequence numbers of a well-formed answer', () => {
    expect(parseFormatted(['CH-20261203-000000051', 'CH-20261203-000000052'], MORNING, MORNING + 3)).toEqual({
      period: '20261203',
      seqs: [51, 52],
    });
    // Sent before midnight in the zone, answered after it: either date is right.
    expect(parseFormatted(['CH-20261204-000000001'], MIDNIGHT - 2, MIDNIGHT + 2).period).toBe('20261204');
    expect(parseFormatted(['CH-20261203-999999999'], MIDNIGHT - 2, MIDNIGHT + 2).seqs).toEqual([999_999_999]);
  });

  it.each([
    ['a date the zone did not show', ['CH-20261202-000000001'], /date 20261202, but Asia\/Shanghai said 20261203/],
    ['two dates in one answer', ['CH-20261203-000000009', 'CH-20261204-000000010'], /two dates/],
    ['a short sequence', ['CH-20261203-00000001'], /bad formatted ID/],
    ['another prefix', ['XX-20261203-000000001'], /bad formatted ID/],
    ['a number instead of a string', [51], /bad formatted ID/],
    ['sequence 0', ['CH-20261203-000000000'], /sequence 0/],
  ])('refuses %s', (_, ids, message) => {
    expect(() => parseFormatted(ids, MORNING, MORNING + 3)).toThrow(message);
  });
});

describe('expected503', () => {
  it('accepts the outage codes on the formatted route, never sequence_exhausted', () => {
    for (const code of ['store_unavailable', 'segment_unavailable', 'not_ready']) {
      expect(expected503('fmt', code)).toBe(true);
      expect(expected503('fmtN', code)).toBe(true);
      expect(expected503('fmtDrain', code)).toBe(true);
    }
    expect(expected503('fmt', 'sequence_exhausted')).toBe(false);
    expect(expected503('fmtN', 'sequence_exhausted')).toBe(false);
    expect(expected503('fmt', 'snowflake_unavailable')).toBe(false);
  });

  it('keeps the segment and snowflake codes as they were', () => {
    expect(expected503('seg', 'segment_unavailable')).toBe(true);
    expect(expected503('seg', 'snowflake_unavailable')).toBe(false);
    expect(expected503('snow', 'clock_moved_backwards')).toBe(true);
    expect(expected503('snowN', 'segment_unavailable')).toBe(false);
  });
});
