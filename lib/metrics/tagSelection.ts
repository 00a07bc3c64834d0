/** Which tags get `biz_tag` series (LEAF_METRICS_TAGS): bounded by default, the busiest plus any with a problem. */
export type MetricsTagSelection = { kind: 'all' } | { kind: 'none' } | { kind: 'top'; n: number };

export const DEFAULT_METRICS_TAGS: MetricsTagSelection = { kind: 'top', n: 100 };
export const METRICS_TAGS_MAX_TOP = 100_000;
export const METRICS_TAGS_GRAMMAR = `top:N (N from 0 to ${METRICS_TAGS_MAX_TOP}; the N busiest tags plus tags with a problem), all, or none`;

/** `top:N`, `all`, `none` (case-insensitive); undefined for anything else. */
export function parseMetricsTags(text: string): MetricsTagSelection | undefined {
  const v = text.trim().toLowerCase();
  if (v === 'all' || v === 'none') return { kind: v };
  const top = /^top:(\d{1,6})$/.exec(v);
  if (top === null || Number(top[1]) > METRICS_TAGS_MAX_TOP) return undefined;
  return { kind: 'top', n: Number(top[1]) };
}

export interface TagCandidate {
  bizTag: string;
  ratePerSec: number;
  /** Its last load failed, or one failed within the last minutes, or its runway is short. */
  problem: boolean;
}

/** `top:N`: the N busiest (ties by name) plus every tag with a problem; `none`: totals only. */
export function selectTags(selection: MetricsTagSelection, candidates: readonly TagCandidate[]): Set<string> {
  if (selection.kind === 'all') return new Set(candidates.map((c) => c.bizTag));
  if (selection.kind === 'none') return new Set();
  const busy = candidates.filter((c) => c.ratePerSec > 0);
  busy.sort((a, b) => b.ratePerSec - a.ratePerSec || (a.bizTag < b.bizTag ? -1 : 1));
  const chosen = new Set(busy.slice(0, selection.n).map((c) => c.bizTag));
  for (const c of candidates) if (c.problem) chosen.add(c.bizTag);
  return chosen;
}
