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
  private lastRecordAt: number | null = null;

  constructor({ clock, keepMs = 15 * 60_000 }: RateTrackerOptions) {
    this.clock = clock;
    this.keepMs = keepMs;
  }

  /** Takes one sample of every tag's total; tags missing from `totals` are forgotten. */
  record(totals: ReadonlyMap<string, number>): void {
    const t = this.clock.now();
    for (const [tag, total] of totals) {
      let list = this.samples.get(tag);
      if (list === undefined) {
        // A tag first seen now issued its total since the previous sample (it had no buffer then): count it there.
        this.samples.set(tag, (list = this.lastRecordAt === null ? [] : [{ t: this.lastRecordAt, total: 0 }]));
      }
      const last = list[list.length - 1];
      // A total that went down means the tag was re-created: start its history afresh.
      if (last !== undefined && total < last.total) list.length = 0;
      list.push({ t, total });
      let drop = 0;
      while (drop < list.length - 1 && list[drop]!.t < t - this.keepMs) drop++;
      if (drop > 0) list.splice(0, drop);
    }
    for (const tag of this.samples.keys()) if (!totals.has(tag)) this.samples.delete(tag);
    this.lastRecordAt = t;
  }

  /** IDs per second over the last `windowMs`, from the samples (0 without two samples). */
  ratePerSec(tag: string, windowMs = 10_000): number {
    const list = this.samples.get(tag);
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

  /** IDs issued per `bucketMs` bucket over the kept window, oldest first, empty buckets included. */
  history(tag: string, bucketMs = 5_000): RatePoint[] {
    const list = this.samples.get(tag);
    if (list === undefined || list.length === 0) return [];
    const end = Math.floor(this.clock.now() / bucketMs) * bucketMs;
    const start = Math.max(Math.floor(list[0]!.t / bucketMs) * bucketMs, end - this.keepMs + bucketMs);
    const points: RatePoint[] = [];
    for (let t = start; t <= end; t += bucketMs) points.push({ t, ids: 0 });
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!;
      const cur = list[i]!;
      const index = Math.floor((cur.t - start) / bucketMs);
      if (index >= 0 && index < points.length) points[index]!.ids += cur.total - prev.total;
    }
    return points;
  }
}
