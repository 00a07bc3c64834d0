/** Fits the run into the hard cap: the measured seconds per run, shortened uniformly for every row when needed. */
import {
  CLAIMS,
  CLIENT_MS,
  DEFAULT_DURATION_S,
  DURATION_FIXED,
  HARD_CAP_MS,
  INPROC_MS,
  LOOP_MS,
  LOOP_WARMUP_MS,
  ROUNDS,
  WARMUP_S,
  progress,
  runs,
  settings,
  t0,
} from './config';

/** A child process's start (node + tsx), seconds. */
const CHILD_START_S = 1;
/** A 3-node Patroni cluster's start (etcd, initdb, two pg_basebackups) and destroy, seconds. */
const PATRONI_START_S = 30;

/**
 * Seconds the bench still needs after the HTTP rows: the client rows, direct claims, the in-process children
 * (inProcess.ts: take and two snowflake modes; idLoop.ts: 3 sources × ROUNDS + 2), the Patroni cluster of the dialects
 * run, stopping everything, writing;
 * plus a margin.
 */
export function tailSeconds(): number {
  const client = runs('client') ? CHILD_START_S + (LOOP_WARMUP_MS + CLIENT_MS * 1.5) / 1000 + 2 : 0;
  const claims = runs('http') || runs('claims') || runs('dialects') ? CLAIMS / 400 : 0;
  // BENCH_ONLY=dialects starts a Patroni cluster after its HTTP rows (~15 s on 2 cores) for claims-patroni.
  const patroni = !runs('http') && runs('dialects') ? PATRONI_START_S : 0;
  const inProcess = CHILD_START_S + 3 * (1 + INPROC_MS / 1000) + 2;
  const loops = (3 * ROUNDS + 2) * (CHILD_START_S + (LOOP_WARMUP_MS + LOOP_MS) / 1000);
  return client + claims + patroni + (runs('inproc') ? inProcess + loops : 0) + 4 + 10 + 15;
}
/** Per run, besides warm-up and measurement: probes, /api/metrics scrapes, autocannon start. */
export const RUN_OVERHEAD_S = 0.6;

/** Shortens the measured seconds per run, the same for every row, so that the rest of the run fits the hard cap. */
export function planDuration(runs: number): string {
  const left = (HARD_CAP_MS - (Date.now() - t0)) / 1000 - tailSeconds();
  const fits = Math.floor((left / runs - WARMUP_S - RUN_OVERHEAD_S) * 2) / 2;
  const estimate = (d: number) =>
    (Date.now() - t0) / 1000 + runs * (WARMUP_S + d + RUN_OVERHEAD_S) + tailSeconds() - 15;
  if (DURATION_FIXED) {
    const note =
      estimate(settings.durationS) * 1000 > HARD_CAP_MS
        ? `; WARNING: BENCH_DURATION=${settings.durationS} does not fit the ${HARD_CAP_MS / 60_000}-min cap`
        : '';
    progress(
      `plan: ${runs} runs × (${WARMUP_S} s warm-up + ${settings.durationS} s measured, BENCH_DURATION) ≈ ${estimate(settings.durationS).toFixed(0)} s in all${note}`,
    );
    return ' (BENCH_DURATION)';
  }
  if (fits >= DEFAULT_DURATION_S) {
    progress(
      `plan: ${runs} runs × (${WARMUP_S} s warm-up + ${settings.durationS} s measured) ≈ ${estimate(settings.durationS).toFixed(0)} s in all, within the ${HARD_CAP_MS / 60_000}-min cap`,
    );
    return '';
  }
  settings.durationS = Math.max(1, fits);
  progress(
    `plan: ${runs} runs would not fit ${HARD_CAP_MS / 60_000} min at ${DEFAULT_DURATION_S} s measured: shortened uniformly to ${settings.durationS} s per run for every row ` +
      `(≈ ${estimate(settings.durationS).toFixed(0)} s in all)`,
  );
  return ` (shortened uniformly from ${DEFAULT_DURATION_S} s to fit the ${HARD_CAP_MS / 60_000}-min cap)`;
}
