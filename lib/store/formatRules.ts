/** A formatted tag's create, edit and claim rules as pure functions, once for every dialect (like tagRules.ts). */
import { LeafError } from '../errors';
import { changeProblem } from '../format/rules';
import type { FormatChanges, FormatRow, NewFormat, PeriodClaim } from '../format/formatStore';
import type { FormatStored } from './rows/formats';

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
