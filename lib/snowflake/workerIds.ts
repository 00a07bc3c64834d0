import { MAX_WORKER_ID } from './layout';

/** LEAF_WORKER_IDS: the only worker ids this node leases, so a fleet beside Java Leaf never takes one of theirs. */
export class WorkerIdSet {
  /** Ascending, no repeats. */
  readonly ids: readonly number[];
  /** Canonical form: ascending runs merged, `512-1023`, `3,5,7`, `0-9,100-199`. */
  readonly text: string;
  private readonly members: ReadonlySet<number>;

  private constructor(ids: Iterable<number>) {
    this.members = new Set(ids);
    this.ids = [...this.members].sort((a, b) => a - b);
    this.text = canonical(this.ids);
  }

  /** Every worker id the layout has: 0 to 1023. */
  static readonly ALL = new WorkerIdSet(Array.from({ length: MAX_WORKER_ID + 1 }, (_, i) => i));

  /** The set of `ids`; each must be a worker id of the layout. */
  static of(ids: Iterable<number>): WorkerIdSet {
    const set = new WorkerIdSet(ids);
    const bad = set.ids.find((id) => !Number.isInteger(id) || id < 0 || id > MAX_WORKER_ID);
    if (bad !== undefined || set.ids.length === 0)
      throw new RangeError(
        `worker ids must be 1 or more integers from 0 to ${MAX_WORKER_ID} (got ${set.text || 'none'})`,
      );
    return set;
  }

  has(id: number): boolean {
    return this.members.has(id);
  }

  get size(): number {
    return this.ids.length;
  }
}

export const WORKER_IDS_GRAMMAR = `worker ids from 0 to ${MAX_WORKER_ID}: a range (512-1023), a list (3,5,7) or both (0-9,100-199)`;

/** `512-1023`, `3,5,7`, `0-9,100-199`: the set, or what is wrong with the text. */
export function parseWorkerIds(text: string): WorkerIdSet | { problem: string } {
  const ids = new Set<number>();
  for (const [i, raw] of text.split(',').entries()) {
    const part = raw.trim();
    if (part === '') return { problem: text.trim() === '' ? 'it is empty' : `entry ${i + 1} is empty` };
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (m === null) return { problem: `"${part}" is neither an id nor a range start-end` };
    const start = Number(m[1]);
    const end = m[2] === undefined ? start : Number(m[2]);
    const above = start > MAX_WORKER_ID ? m[1] : end > MAX_WORKER_ID ? m[2] : null; // as typed: 1e+23 says nothing
    if (above !== null) return { problem: `${above} is above ${MAX_WORKER_ID}` };
    if (start > end) return { problem: `"${part}" starts above its end` };
    for (let id = start; id <= end; id++) ids.add(id);
  }
  return WorkerIdSet.of(ids);
}

/** Ascending ids as merged runs: [0,1,2,5] → `0-2,5`. */
function canonical(ids: readonly number[]): string {
  const runs: Array<[first: number, last: number]> = [];
  for (const id of ids) {
    const run = runs.at(-1);
    if (run !== undefined && id === run[1] + 1) run[1] = id;
    else runs.push([id, id]);
  }
  return runs.map(([first, last]) => (first === last ? String(first) : `${first}-${last}`)).join(',');
}
