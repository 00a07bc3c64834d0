/**
 * The real-time order check of ordered tags (docs/design.md#ordered-tags): every answer of a run as (sent, received,
 * IDs) on one monotonic clock; for each answer B, every ID of B must exceed the largest ID of every answer A that was
 * received before B was sent. Also counts IDs given twice. IDs are bigints, so wide ones compare exactly.
 */

export interface TimedAnswer {
  /** When the request that got this answer left (ms, one monotonic clock for every client). */
  sentAt: number;
  receivedAt: number;
  ids: readonly bigint[];
}

export interface OrderViolation {
  /** The answer that went backwards. */
  answer: TimedAnswer;
  /** Its smallest ID, and the largest ID answered before it was sent. */
  smallest: bigint;
  largestBefore: bigint;
}

export interface OrderReport {
  answers: number;
  ids: number;
  violations: number;
  duplicates: number;
  /** A few of the violations, for the failure message. */
  examples: OrderViolation[];
}

export function checkOrder(answers: readonly TimedAnswer[], keep = 5): OrderReport {
  const withIds = answers.filter((a) => a.ids.length > 0);
  // The largest ID of all answers received up to each point, by time received.
  const byReceived = [...withIds].sort((a, b) => a.receivedAt - b.receivedAt);
  const receivedAt = byReceived.map((a) => a.receivedAt);
  const largestUpTo: bigint[] = [];
  let largest = -1n;
  for (const a of byReceived) {
    for (const id of a.ids) if (id > largest) largest = id;
    largestUpTo.push(largest);
  }
  let violations = 0;
  const examples: OrderViolation[] = [];
  for (const b of withIds) {
    const before = lastBelow(receivedAt, b.sentAt);
    if (before < 0) continue;
    const largestBefore = largestUpTo[before] as bigint;
    let smallest = b.ids[0] as bigint;
    for (const id of b.ids) if (id < smallest) smallest = id;
    if (smallest > largestBefore) continue;
    violations++;
    if (examples.length < keep) examples.push({ answer: b, smallest, largestBefore });
  }
  return { answers: withIds.length, ids: countIds(withIds), violations, duplicates: duplicates(withIds), examples };
}

/** The index of the last value strictly below `t` in ascending `values`, or -1. */
function lastBelow(values: readonly number[], t: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((values[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function countIds(answers: readonly TimedAnswer[]): number {
  return answers.reduce((n, a) => n + a.ids.length, 0);
}

function duplicates(answers: readonly TimedAnswer[]): number {
  const all = new BigInt64Array(countIds(answers));
  let k = 0;
  for (const a of answers) for (const id of a.ids) all[k++] = id;
  all.sort();
  let repeats = 0;
  for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) repeats++;
  return repeats;
}

/** `order-violations=0 duplicates=0 answers=… ids=…`: the summary line's part. */
export function orderSummary(report: OrderReport): string {
  return `order-violations=${report.violations} duplicates=${report.duplicates} answers=${report.answers} ids=${report.ids}`;
}
