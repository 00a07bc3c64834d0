/** Pure checks over what the Recorder saw. */
import { type Kind, type OkRecord, type Recorder, SEGMENT_KINDS } from './record';

export interface DuplicateReport {
  duplicates: number;
  examples: string[];
}

/** Overlaps between any two recorded segment ranges, across every node and lifetime. */
export function segmentDuplicates(rec: Recorder): DuplicateReport {
  const data = rec.segRanges.data;
  const n = rec.segRanges.length / 2;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => data[2 * a] - data[2 * b] || data[2 * a + 1] - data[2 * b + 1]);
  let maxEnd = -Infinity;
  let duplicates = 0;
  const examples: string[] = [];
  for (let k = 0; k < n; k++) {
    const i = order[k];
    const start = data[2 * i];
    const end = data[2 * i + 1];
    if (start <= maxEnd) {
      duplicates += Math.min(end, maxEnd) - start + 1;
      if (examples.length < 5) examples.push(`${start}..${end} overlaps IDs up to ${maxEnd}`);
    }
    if (end > maxEnd) maxEnd = end;
  }
  return { duplicates, examples };
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
      while (j < byRecv.length && byRecv[j].recvT < r.sendT) {
        const done = byRecv[j++];
        if (maxSeen === null || done.max > maxSeen) {
          maxSeen = done.max;
          maxFrom = done;
        }
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

/** Nearest-rank percentile of `values` (ms). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** recvT of node i's first 200 (segment or snowflake) to a request sent at or after `after`; null if none. */
export function firstOkAfter(rec: Recorder, node: number, after: number, segment: boolean): number | null {
  let best: number | null = null;
  for (let k = rec.ok.length - 1; k >= 0; k--) {
    const r = rec.ok[k];
    if (r.sendT < after - 60_000) break; // records are appended roughly in time order
    if (r.node === node && SEGMENT_KINDS.has(r.kind) === segment && r.sendT >= after && (best === null || r.recvT < best)) best = r.recvT;
  }
  return best;
}
