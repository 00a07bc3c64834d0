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
}

export const rows: Row[] = [];
export const failures: string[] = [];

export function row(key: string): Row | undefined {
  return rows.find((r) => r.key === key);
}
