/** One tag's buffer as the console and the fleet registry see it: IDs as decimal strings (they may pass 2^53). */
import type { Segment, TagBuffer } from './buffer';
import { idAt } from './id';

export interface TagSnapshot {
  bizTag: string;
  minStep: number;
  step: number;
  /** IDs as decimal strings: they may pass 2^53. */
  current: { start: string; max: string; next: string; step: number; remaining: number } | null;
  pending: { start: string; max: string; step: number } | null;
  loading: boolean;
  lastLoadAt: number | null;
  lastError: string | null;
  issuedTotal: number;
  waits: number;
  failedRequests: number;
}

export function tagSnapshot(b: TagBuffer): TagSnapshot {
  const c = b.current;
  const p = b.pending;
  return {
    bizTag: b.bizTag,
    minStep: b.minStep,
    step: b.step,
    current: c && {
      start: idText(c, c.start),
      max: idText(c, c.max),
      next: idText(c, c.next),
      step: c.step,
      remaining: b.remainingInCurrent(),
    },
    pending: p && { start: idText(p, p.start), max: idText(p, p.max), step: p.step },
    loading: b.loading !== null,
    lastLoadAt: b.lastLoadAt ?? null,
    lastError: b.lastError?.message ?? null,
    issuedTotal: b.issuedTotal(),
    waits: b.waits,
    failedRequests: b.failedRequests,
  };
}

/** The ID at a segment position, as decimal text. */
function idText(s: Segment, position: number): string {
  return String(idAt(s.base, position));
}
