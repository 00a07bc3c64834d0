/** Pure checks over what the Recorder saw. */
import { FORMATTED_OK_503, LATENCY, SEGMENT_OK_503, SNOWFLAKE_OK_503, TAG } from './config';
import type { LogEvent } from './node';
import { FORMATTED_KINDS, type GrowF64, type Kind, type OkRecord, type Recorder, SEGMENT_KINDS } from './record';

export type Family = 'segment' | 'snowflake' | 'formatted';

export const familyOf = (kind: Kind): Family =>
  SEGMENT_KINDS.has(kind) ? 'segment' : FORMATTED_KINDS.has(kind) ? 'formatted' : 'snowflake';

const OK_503: Record<Family, ReadonlySet<string>> = {
  segment: SEGMENT_OK_503,
  snowflake: SNOWFLAKE_OK_503,
  formatted: FORMATTED_OK_503,
};

/** Whether a 503 with this JSON error code is one a fault may cause on this kind's route (when is checked apart). */
export function expected503(kind: Kind, code: string): boolean {
  return OK_503[familyOf(kind)].has(code);
}

export interface DuplicateReport {
  duplicates: number;
  examples: string[];
}

/** Overlaps between any two [start, end] pairs of `ranges`; `describe` words an example. */
function rangeOverlaps(
  ranges: GrowF64,
  report: DuplicateReport,
  describe: (start: number, end: number, maxEnd: number) => string,
): void {
  const data = ranges.data;
  const n = ranges.length / 2;
  const at = (k: number): number => {
    const v = data[k];
    if (v === undefined) throw new Error(`range data has no element ${k} (${ranges.length} recorded)`);
    return v;
  };
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => at(2 * a) - at(2 * b) || at(2 * a + 1) - at(2 * b + 1));
  let maxEnd = -Infinity;
  for (const i of order) {
    const start = at(2 * i);
    const end = at(2 * i + 1);
    if (start <= maxEnd) {
      report.duplicates += Math.min(end, maxEnd) - start + 1;
      if (report.examples.length < 5) report.examples.push(describe(start, end, maxEnd));
    }
    if (end > maxEnd) maxEnd = end;
  }
}

/** Overlaps between any two recorded segment ranges, across every node and lifetime. */
export function segmentDuplicates(rec: Recorder): DuplicateReport {
  const report: DuplicateReport = { duplicates: 0, examples: [] };
  rangeOverlaps(rec.segRanges, report, (start, end, maxEnd) => `${start}..${end} overlaps IDs up to ${maxEnd}`);
  return report;
}

/**
 * Formatted IDs seen twice: within each period key (the ID's date), overlaps between recorded sequence ranges,
 * across every node and lifetime. Two periods never share an ID (their dates differ), so each is swept alone.
 */
export function formattedDuplicates(rec: Recorder): DuplicateReport & { ranges: number; periods: number } {
  const report = { duplicates: 0, examples: [] as string[], ranges: 0, periods: rec.fmtRanges.size };
  for (const [period, ranges] of rec.fmtRanges) {
    report.ranges += ranges.length / 2;
    rangeOverlaps(
      ranges,
      report,
      (start, end, maxEnd) => `period ${period}: sequence ${start}..${end} overlaps numbers up to ${maxEnd}`,
    );
  }
  return report;
}

export function snowflakeDuplicates(rec: Recorder): DuplicateReport {
  const ids = rec.snowIds.data.slice(0, rec.snowIds.length);
  ids.sort();
  let duplicates = 0;
  const examples: string[] = [];
  for (let i = 1; i < ids.length; i++) {
    if (ids[i] === ids[i - 1]) {
      duplicates++;
      if (examples.length < 5) examples.push(String(ids[i]));
    }
  }
  return { duplicates, examples };
}

export interface OrderReport {
  checked: number;
  violations: number;
  examples: string[];
}

/**
 * Per node, in real time: a request sent after another request's answer was received must get IDs above all of
 * that answer's IDs (the node issues from one monotonic sequence per tag; a restart claims fresh, higher segments,
 * and a restarted snowflake worker starts above its fence). Concurrent requests are not ordered against each other.
 */
export function realTimeOrder(records: OkRecord[], kinds: ReadonlySet<Kind>, nodeNames: string[]): OrderReport {
  let checked = 0;
  let violations = 0;
  const examples: string[] = [];
  nodeNames.forEach((name, node) => {
    const rs = records.filter((r) => r.node === node && kinds.has(r.kind));
    const byRecv = [...rs].sort((a, b) => a.recvT - b.recvT);
    const bySend = [...rs].sort((a, b) => a.sendT - b.sendT);
    let j = 0;
    let maxSeen: number | bigint | null = null;
    let maxFrom: OkRecord | null = null;
    for (const r of bySend) {
      let done = byRecv[j];
      while (done !== undefined && done.recvT < r.sendT) {
        if (maxSeen === null || done.max > maxSeen) {
          maxSeen = done.max;
          maxFrom = done;
        }
        done = byRecv[++j];
      }
      checked++;
      if (maxSeen !== null && !(r.min > maxSeen)) {
        violations++;
        if (examples.length < 5) {
          examples.push(
            `${name}: life ${r.life} ${r.kind} sent ${r.sendT.toFixed(1)} got ${String(r.min)}, but life ${maxFrom?.life} ` +
              `${maxFrom?.kind} answered ${String(maxSeen)} at ${maxFrom?.recvT.toFixed(1)}`,
          );
        }
      }
    }
  });
  return { checked, violations, examples };
}

/** realTimeOrder for formatted answers, within each period (a new period's sequence starts again from 1). */
export function formattedOrder(records: OkRecord[], nodeNames: string[]): OrderReport {
  const byPeriod = new Map<string, OkRecord[]>();
  for (const r of records) {
    if (!FORMATTED_KINDS.has(r.kind) || r.period === undefined) continue;
    const list = byPeriod.get(r.period);
    if (list === undefined) byPeriod.set(r.period, [r]);
    else list.push(r);
  }
  const total: OrderReport = { checked: 0, violations: 0, examples: [] };
  for (const [period, list] of byPeriod) {
    const one = realTimeOrder(list, FORMATTED_KINDS, nodeNames);
    total.checked += one.checked;
    total.violations += one.violations;
    for (const e of one.examples) if (total.examples.length < 5) total.examples.push(`period ${period}: ${e}`);
  }
  return total;
}

/** The largest of `values` (-Infinity for none), for arrays too long to spread into Math.max's arguments. */
export function maxOf(values: readonly number[]): number {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  return max;
}

/** recvT of node i's first 200 of `kinds` to a request sent at or after `after`; null if none. */
export function firstOkAfter(rec: Recorder, node: number, after: number, kinds: ReadonlySet<Kind>): number | null {
  let best: number | null = null;
  for (let k = rec.ok.length - 1; k >= 0; k--) {
    const r = rec.ok[k];
    if (r === undefined) throw new Error(`no OK record ${k} of ${rec.ok.length}`);
    if (r.sendT < after - 60_000) break; // records are appended roughly in time order
    if (r.node === node && kinds.has(r.kind) && r.sendT >= after && (best === null || r.recvT < best)) best = r.recvT;
  }
  return best;
}

/** A segment load of the chaos tag between `from` and `to` that took at least the slow proxies' least delay: it went through them. */
export function isSlowLoad(e: LogEvent, from: number, to: number): boolean {
  return (
    e.event === 'segment_loaded' &&
    e.fields.bizTag === TAG &&
    e.at >= from &&
    e.at <= to &&
    Number(e.fields.durationMs) >= LATENCY.minMs * 0.9
  );
}
