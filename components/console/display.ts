import type { EngineView, HealthView, HostGalera, NodeState, TagView } from './api';

/** Presentation only: how the engine's numbers read on screen. */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export function showInt(n: number): string {
  return integer.format(n);
}

/** A decimal string (max_id), grouped in thousands without going through a float. */
export function showDecimal(s: string): string {
  return /^\d+$/.test(s) ? s.replace(/\B(?=(\d{3})+(?!\d))/g, ',') : s;
}

export function showRate(perSec: number): string {
  return perSec >= 100 ? integer.format(perSec) : oneDecimal.format(perSec);
}

/** `05:20:12Z`: a time of day in UTC, as showUtc writes it (one format with its zone on every page). */
export function showTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19) + 'Z';
}

/** `2026-12-07 05:20:12Z`: a moment in UTC, the same for every operator who reads it. */
export function showUtc(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + 'Z';
}

export function showAgo(ms: number | null, now: number): string {
  if (ms === null) return 'never';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

export type SegmentState = 'ready' | 'loading' | 'not-yet' | 'no-load';

/** What the dashboard says about the next segment. */
export function nextSegmentState(engine: EngineView | null): SegmentState {
  if (engine === null || (engine.current === null && !engine.loading)) return 'no-load';
  if (engine.pending !== null) return 'ready';
  if (engine.loading) return 'loading';
  return 'not-yet';
}

export const SEGMENT_STATE_LABEL: Record<SegmentState, string> = {
  ready: 'ready',
  loading: 'loading…',
  'not-yet': 'not yet',
  'no-load': '—',
};

/** Remaining share of the current segment, 0..100; null before the first load. */
export function remainingPercent(engine: EngineView | null): number | null {
  const c = engine?.current;
  if (c === undefined || c === null) return null;
  const size = c.step;
  return size > 0 ? Math.max(0, Math.min(100, (c.remaining / size) * 100)) : 0;
}

export const RATE_BUCKET_MS = 5_000;
export const RATE_WINDOW_MS = 15 * 60_000;

/** The charts' shared time axis: what the server has (at most 15 min), and never less than 2 min. */
export const MIN_CHART_WINDOW_MS = 2 * 60_000;

export function chartWindow(rate: { t: number }[], steps: { t: number }[], now: number): [number, number] {
  let end = now;
  let earliest = now;
  for (const p of rate) {
    end = Math.max(end, p.t + RATE_BUCKET_MS);
    earliest = Math.min(earliest, p.t);
  }
  for (const p of steps) earliest = Math.min(earliest, p.t);
  const start = Math.max(end - RATE_WINDOW_MS, Math.min(earliest, end - MIN_CHART_WINDOW_MS));
  return [start, end];
}

/**
 * The rate as 5-second buckets over the window, in IDs per second: a bucket the source recorded is its IDs / 5;
 * one it did not record (before a node started, a node that did not answer) is null — a gap, never a zero.
 */
export function rateSeries(
  points: { t: number; ids: number | null }[],
  [start, end]: [number, number],
): { t: number; perSec: number | null }[] {
  const byBucket = new Map<number, number | null>();
  for (const p of points) byBucket.set(Math.floor(p.t / RATE_BUCKET_MS) * RATE_BUCKET_MS, p.ids);
  const out: { t: number; perSec: number | null }[] = [];
  const first = Math.ceil(start / RATE_BUCKET_MS) * RATE_BUCKET_MS;
  for (let t = first; t < end; t += RATE_BUCKET_MS) {
    const ids = byBucket.get(t);
    out.push({ t, perSec: ids == null ? null : ids / (RATE_BUCKET_MS / 1000) });
  }
  return out;
}

/** A step history drawn to the window's end, so the last step reads as still in force. */
export function stepSeries<P extends { t: number; step: number }>(points: P[], [, end]: [number, number]): P[] {
  const sorted = [...points].sort((a, b) => a.t - b.t);
  const last = sorted.at(-1);
  return last !== undefined && last.t < end ? [...sorted, { ...last, t: end }] : sorted;
}

/** The step in force on this node: the last loaded segment's, or the DB step before any load. */
export function currentStep(tag: TagView): number {
  const e = tag.engine;
  return e !== null && e.lastLoadAt !== null ? e.step : tag.step;
}

/** A probe's latency: one decimal below 100 ms, whole milliseconds above. */
export function showLatency(ms: number): string {
  return `${showRate(ms)} ms`;
}

/** "Synced · 3 nodes · Primary". */
export function galeraSummary(g: HostGalera): string {
  return `${g.state || '—'} · ${g.clusterSize} ${g.clusterSize === 1 ? 'node' : 'nodes'} · ${g.clusterStatus || '—'}`;
}

/** The SQLite store in one line: "Embedded SQLite — reachable, 0.4 ms". */
export function sqliteLine(store: HealthView['store']): string {
  return store.reachable
    ? `Embedded SQLite — reachable, ${showLatency(store.latencyMs)}`
    : `Embedded SQLite — unreachable${store.error ? `: ${store.error}` : ''}`;
}

/** A span of seconds in the largest unit that reads naturally: "8 s", "4.5 min", "2.1 h", "3 d". */
export function showDuration(seconds: number): string {
  if (seconds < 60) return `${oneDecimal.format(seconds < 10 ? seconds : Math.round(seconds))} s`;
  if (seconds < 3600) return `${oneDecimal.format(seconds / 60)} min`;
  if (seconds < 86_400) return `${oneDecimal.format(seconds / 3600)} h`;
  return `${oneDecimal.format(seconds / 86_400)} d`;
}

/** A runway as the console shows it: "idle" when nothing is consumed (the buffer lasts for ever). */
export function showRunway(seconds: number | null): string {
  return seconds === null ? 'idle' : showDuration(seconds);
}

/** Below the threshold (LEAF_RUNWAY_WARN_SECONDS) a runway is a warning: a database restart would outlast it. */
export function runwayLow(seconds: number | null, warnSeconds: number | undefined): boolean {
  return seconds !== null && warnSeconds !== undefined && seconds < warnSeconds;
}

export const NODE_STATE_LABEL: Record<NodeState, string> = { up: 'up', gone: 'gone', stopped: 'stopped' };

/** "2 h 5 min", "3 min", "12 s": how long a node has been running. */
export function showUptime(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h ${m % 60} min` : `${Math.floor(h / 24)} d ${h % 24} h`;
}

/**
 * The step advice of the tag page: one segment is what a node can count on while the database is away, so a
 * step shorter than the outage at the node's rate says which step would last it; null when the step is enough.
 */
export function stepAdvice(
  step: number,
  ratePerSec: number,
  outageSeconds: number,
  needed: number | null,
): string | null {
  if (needed === null) return null;
  return (
    `This tag's step of ${showInt(step)} lasts ${showDuration(step / ratePerSec)} at ${showRate(ratePerSec)} IDs/s; ` +
    `a database restart of ${showDuration(outageSeconds)} needs a step of at least ${showInt(needed)} — raise the step.`
  );
}
