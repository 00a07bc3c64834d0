/** IDs as inclusive runs of positions: a batch of 10,000 is one or two runs, never 10,000 numbers. */
import { type Id, idAt } from './id';

/** `bounds` [first0, last0, first1, …] holding `count` IDs; `bases[i]` for a run of a wide segment, else null. */
export interface IdRanges {
  bounds: number[];
  count: number;
  bases: Array<bigint | null> | null;
}

export function newRanges(): IdRanges {
  return { bounds: [], count: 0, bases: null };
}

function lastBase({ bases }: IdRanges): bigint | null {
  return bases === null ? null : (bases[bases.length - 1] as bigint | null);
}

/** A run right after the one before (the next segment) extends it, when both count from the same base. */
export function appendRun(out: IdRanges, first: number, last: number, base: bigint | null): void {
  const { bounds } = out;
  out.count += last - first + 1;
  if (bounds.length > 0 && bounds[bounds.length - 1] === first - 1 && lastBase(out) === base) {
    bounds[bounds.length - 1] = last;
    return;
  }
  if (base !== null && out.bases === null) out.bases = new Array<bigint | null>(bounds.length / 2).fill(null);
  bounds.push(first, last);
  out.bases?.push(base);
}

/** The base of run `r` (an index into bounds, even). */
export function runBase(ranges: IdRanges, r: number): bigint | null {
  return ranges.bases === null ? null : (ranges.bases[r >> 1] as bigint | null);
}

export function firstId(ranges: IdRanges): Id {
  return idAt(runBase(ranges, 0), ranges.bounds[0] as number);
}

export function expandRanges(ranges: IdRanges): Id[] {
  const { bounds, count } = ranges;
  const ids = new Array<Id>(count);
  let k = 0;
  for (let r = 0; r < bounds.length; r += 2) {
    const base = runBase(ranges, r);
    const last = bounds[r + 1] as number;
    if (base === null) for (let id = bounds[r] as number; id <= last; id++) ids[k++] = id;
    else for (let id = bounds[r] as number; id <= last; id++) ids[k++] = idAt(base, id);
  }
  return ids;
}

/** Runs as decimal text (a lease's `ranges`) back to IdRanges: exact, with a base for any run past 2^53. */
export function rangesOfRuns(runs: ReadonlyArray<{ start: string; end: string }>): IdRanges {
  const out = newRanges();
  for (const { start, end } of runs) {
    const first = BigInt(start);
    const last = BigInt(end);
    if (last <= MAX_SAFE_ID) appendRun(out, Number(first), Number(last), null);
    else appendRun(out, 0, Number(last - first), first);
  }
  return out;
}

/** The first `count` IDs of `from` as runs of their own, removed from `from` (which keeps the rest, in order). */
export function takeFront(from: IdRanges, count: number): IdRanges {
  const out = newRanges();
  while (out.count < count && from.count > 0) {
    const base = runBase(from, 0);
    const first = from.bounds[0] as number;
    const last = from.bounds[1] as number;
    const n = Math.min(count - out.count, last - first + 1);
    appendRun(out, first, first + n - 1, base);
    from.count -= n;
    if (first + n > last) {
      from.bounds.splice(0, 2);
      from.bases?.splice(0, 1);
    } else from.bounds[0] = first + n;
  }
  return out;
}

const MAX_SAFE_ID = BigInt(Number.MAX_SAFE_INTEGER);
