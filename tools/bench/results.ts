/** The finished rows of the results table, in order, and the correctness failures found on the way. */
export interface Row {
  key: string;
  scenario: string;
  reqPerSec: number;
  idsPerSec: number;
  p50: number;
  p99: number;
  errors: number | null;
  non2xx: number | null;
  /** DB writes per 1,000 IDs (NaN: no store), with the cell's text. */
  writesPer1000: number;
  writesCell: string;
  /** Server CPU time per successful request, µs. */
  cpuPerReqUs: number;
  /** Share of the machine (all cores) used by the server, the load generator (this process) and everything else. */
  cpuShare: { server: number; gen: number; other: number } | null;
  check: string;
  /**
   * Segment loads (claims: one UPDATE of leaf_alloc each) during the measured time: per second, how many, and the
   * p50 / p99 of one load's duration (ms) over the `timed` ones; null where not measured.
   */
  claims: Claims | null;
  /** The Ratio (target) cell, for rows that carry their own (render.ts holds the others'). */
  ratio?: string;
}

export interface Claims {
  perSec: number;
  count: number;
  timed: number;
  p50Ms: number;
  p99Ms: number;
}

export const rows: Row[] = [];
export const failures: string[] = [];
/** Rows that did not run and why (a feature this version lacks), printed under the table. */
export const notes: string[] = [];

export function row(key: string): Row | undefined {
  return rows.find((r) => r.key === key);
}
