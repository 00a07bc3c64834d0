import { LeafError } from '../errors';
import { isResetPeriod } from '../format/period';
import { changeProblem } from '../format/rules';
import type { FormatChanges, FormatPeriodRow, FormatRow, NewFormat, PeriodClaim } from '../format/formatStore';

/** A leaf_format row as either dialect reads it (BIGINTs may arrive as decimal strings). */
export interface FormatStored {
  bizTag: string;
  pattern: string;
  resetPeriod: string;
  timeZone: string;
  step: number;
  description: string | null;
  createdAt: number | string;
  updatedAt: number | string;
  deletedAt: number | string | null;
}

export function formatRow(r: FormatStored): FormatRow {
  if (!isResetPeriod(r.resetPeriod)) {
    throw new LeafError(
      'tag_misconfigured',
      `Formatted tag "${r.bizTag}" has reset period "${r.resetPeriod}", not never, daily, monthly or yearly.`,
    );
  }
  return {
    bizTag: r.bizTag,
    pattern: r.pattern,
    resetPeriod: r.resetPeriod,
    timeZone: r.timeZone,
    step: Number(r.step),
    description: r.description,
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

export interface PeriodStored {
  bizTag: string;
  periodKey: string;
  maxId: number | string;
  step: number | string;
  updateTime: number | string;
}

export function periodRow(r: PeriodStored): FormatPeriodRow {
  return {
    bizTag: r.bizTag,
    periodKey: r.periodKey,
    maxId: Number(r.maxId),
    step: Number(r.step),
    updateTime: Number(r.updateTime),
  };
}

/** A create over a deleted format is allowed only with its reset and pattern shape (its periods continue). */
export function checkCreate(found: FormatStored | undefined, format: NewFormat): void {
  if (found === undefined) return;
  if (found.deletedAt === null) throw new LeafError('tag_exists', `Formatted tag "${format.bizTag}" already exists.`);
  const problem = changeProblem(
    { pattern: found.pattern, resetPeriod: found.resetPeriod as FormatRow['resetPeriod'] },
    format,
  );
  if (problem !== null) throw conflict(format.bizTag, `It was deleted, and its periods continue. ${problem}`);
}

/** The row an edit may write, or format_conflict. */
export function checkEdit(before: FormatRow, changes: FormatChanges): void {
  if (changes.pattern === undefined || changes.pattern === before.pattern) return;
  const problem = changeProblem(before, { pattern: changes.pattern, resetPeriod: before.resetPeriod });
  if (problem !== null) throw conflict(before.bizTag, problem);
}

function conflict(bizTag: string, problem: string): LeafError {
  return new LeafError('format_conflict', `Formatted tag "${bizTag}": ${problem}`, { fields: { pattern: problem } });
}

/** First number `first` (old max_id + 1): owns first … min(first + step − 1, cap); none past the cap. */
export function claimFrom(first: number, step: number, cap: number): PeriodClaim {
  const lastSeq = Math.min(first + step - 1, cap);
  return { lastSeq, count: Math.max(0, lastSeq - first + 1) };
}
