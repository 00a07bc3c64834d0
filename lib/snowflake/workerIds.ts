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

  /** Every worker id a layout has: 0 to `maxWorkerId` (1023 in Leaf's). */
  static all(maxWorkerId: number): WorkerIdSet {
    return new WorkerIdSet(Array.from({ length: maxWorkerId + 1 }, (_, i) => i));
  }

  /** The set of `ids`; each must be a worker id of the layout (0 to `maxWorkerId`). */
  static of(ids: Iterable<number>, maxWorkerId: number): WorkerIdSet {
    const set = new WorkerIdSet(ids);
    const bad = set.ids.find((id) => !Number.isInteger(id) || id < 0 || id > maxWorkerId);
    if (bad !== undefined || set.ids.length === 0)
      throw new RangeError(
        `worker ids must be 1 or more integers from 0 to ${maxWorkerId} (got ${set.text || 'none'})`,
      );
    return set;
  }

  /** The highest id in the set. */
  get max(): number {
    return this.ids[this.ids.length - 1] as number; // never empty
  }

  has(id: number): boolean {
    return this.members.has(id);
  }

  get size(): number {
    return this.ids.length;
  }
}

export const workerIdsGrammar = (maxWorkerId: number) =>
  `worker ids from 0 to ${maxWorkerId}: a range (512-1023), a list (3,5,7) or both (0-9,100-199)`;

/** `512-1023`, `3,5,7`, `0-9,100-199`: the set, or what is wrong with the text; ids above `maxWorkerId` refused. */
export function parseWorkerIds(text: string, maxWorkerId: number): WorkerIdSet | { problem: string } {
  const ids = new Set<number>();
  for (const [i, raw] of text.split(',').entries()) {
    const part = raw.trim();
    if (part === '') return { problem: text.trim() === '' ? 'it is empty' : `entry ${i + 1} is empty` };
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (m === null) return { problem: `"${part}" is neither an id nor a range start-end` };
    const start = Number(m[1]);
    const end = m[2] === undefined ? start : Number(m[2]);
    const above = start > maxWorkerId ? m[1] : end > maxWorkerId ? m[2] : null; // as typed: 1e+23 says nothing
    if (above !== null) return { problem: `${above} is above ${maxWorkerId}` };
    if (start > end) return { problem: `"${part}" starts above its end` };
    for (let id = start; id <= end; id++) ids.add(id);
  }
  return WorkerIdSet.of(ids, maxWorkerId);
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
