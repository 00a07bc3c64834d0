import { now } from './load';

/**
 * Event-loop stalls of the harness itself (a starved or GC-paused client): a request in flight during one has a
 * latency that says nothing about the node, so the p99 windows leave it out (and say how many they left out).
 */
export class StallMonitor {
  readonly stalls: Array<{ from: number; to: number }> = [];
  private last = now();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly thresholdMs: number) {}

  start(): void {
    this.last = now();
    this.timer = setInterval(() => {
      const t = now();
      if (t - this.last - 10 > this.thresholdMs) this.stalls.push({ from: this.last, to: t });
      this.last = t;
    }, 10);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
  }

  overlaps(from: number, to: number): boolean {
    for (const s of this.stalls) if (s.from <= to && s.to >= from) return true;
    return false;
  }
}
