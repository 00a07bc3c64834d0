import type { Clock } from '../clock';

/** Per-tag consumption, sampled once a second from totals derived from segment positions. */
export interface RatePoint {
  /** Bucket start, ms since the Unix epoch. */
  t: number;
  /** IDs issued during the bucket. */
  ids: number;
}

interface Sample {
  t: number;
  total: number;
}

export interface RateTrackerOptions {
  clock: Clock;
  /** How far back samples are kept (default 15 min). */
  keepMs?: number;
}

export class RateTracker {
  private readonly clock: Clock;
  private readonly keepMs: number;
  private readonly samples = new Map<string, Sample[]>();
  /** Every tag's IDs together, a running total kept as each sample is taken: the fleet-wide rate without a walk. */
  private readonly all: Sample[] = [];
  private allIssued = 0;
  /** Per tag, when its history restarted (re-created): before it, this node's IDs of the tag are not known. */
  private readonly restartedAt = new Map<string, number>();
  /** Made with the engine, before any ID: every total was 0 then, so this is the first sample of every tag. */
  private readonly startedAt: number;
  private lastRecordAt: number;

  constructor({ clock, keepMs = 15 * 60_000 }: RateTrackerOptions) {
    this.clock = clock;
    this.keepMs = keepMs;
    this.startedAt = clock.now();
    this.lastRecordAt = this.startedAt;
  }

  /** Takes one sample of every tag's total; tags missing from `totals` are forgotten. */
  record(totals: ReadonlyMap<string, number>): void {
    const t = this.clock.now();
    for (const [tag, total] of totals) {
      let list = this.samples.get(tag);
      if (list === undefined) {
        // A tag first seen now issued its total since the previous sample (it had no buffer then): count it there.
        this.samples.set(tag, (list = [{ t: this.lastRecordAt, total: 0 }]));
      }
      const last = list[list.length - 1];
      this.allIssued += Math.max(0, total - (last?.total ?? 0));
      // A total that went down means the tag was re-created: start its history afresh.
      if (last !== undefined && total < last.total) {
        list.length = 0;
        this.restartedAt.set(tag, t);
      }
      list.push({ t, total });
      let drop = 0;
      while (drop < list.length - 1 && list[drop]!.t < t - this.keepMs) drop++;
      if (drop > 0) list.splice(0, drop);
    }
    for (const tag of this.samples.keys()) if (!totals.has(tag)) this.samples.delete(tag);
    for (const [tag, at] of this.restartedAt) if (at < t - this.keepMs) this.restartedAt.delete(tag);
    this.all.push({ t, total: this.allIssued });
    while (this.all.length > 1 && this.all[0]!.t < t - this.keepMs) this.all.shift();
    this.lastRecordAt = t;
  }

  /** IDs per second over the last `windowMs`, from the samples (0 without two samples). */
  ratePerSec(tag: string, windowMs = 10_000): number {
    return rateOf(this.samples.get(tag), windowMs);
  }

  /** Every tag's IDs per second together over the last `windowMs`, from a running total: no walk over the tags. */
  totalRatePerSec(windowMs = 10_000): number {
    return rateOf(this.all, windowMs);
  }

  /**
   * IDs issued per `bucketMs` bucket, oldest first, over the buckets this node has fully sampled: from its start
   * (before it, this process issued nothing), or the tag's re-creation, or the kept window's start, to the last
   * sample. Every bucket in it is known — a tag without samples issued nothing here — and none outside it is claimed.
   */
  history(tag: string, bucketMs = 5_000): RatePoint[] {
    const floor = (t: number) => Math.floor(t / bucketMs) * bucketMs;
    const ceil = (t: number) => Math.ceil(t / bucketMs) * bucketMs;
    const restarted = this.restartedAt.get(tag);
    const start = Math.max(
      floor(this.startedAt),
      restarted === undefined ? -Infinity : ceil(restarted),
      ceil(this.clock.now() - this.keepMs),
    );
    const end = floor(this.lastRecordAt); // buckets before it have all their samples
    const points: RatePoint[] = [];
    for (let t = start; t < end; t += bucketMs) points.push({ t, ids: 0 });
    const list = this.samples.get(tag) ?? [];
    for (let i = 1; i < list.length; i++) {
      const index = Math.floor((list[i]!.t - start) / bucketMs);
      if (index >= 0 && index < points.length) points[index]!.ids += list[i]!.total - list[i - 1]!.total;
    }
    return points;
  }
}

/** The rate over the last `windowMs` of a list of samples (0 without two samples). */
function rateOf(list: Sample[] | undefined, windowMs: number): number {
  if (list === undefined || list.length < 2) return 0;
  const last = list[list.length - 1]!;
  let first = list[0]!;
  for (let i = list.length - 2; i >= 0; i--) {
    first = list[i]!;
    if (first.t <= last.t - windowMs) break;
  }
  const seconds = (last.t - first.t) / 1000;
  return seconds > 0 ? (last.total - first.total) / seconds : 0;
}
