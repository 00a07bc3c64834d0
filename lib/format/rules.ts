import { LeafError } from '../errors';
import { type FormatPattern, parsePattern, patternShape } from './pattern';
import { PERIOD_TOKENS, type ResetPeriod } from './period';

/** What keeps a formatted tag's IDs unique: every date part of its period shown; later, only a wider sequence. */
export interface FormatSpec {
  pattern: string;
  resetPeriod: ResetPeriod;
}

/** The parsed pattern, or why `pattern` cannot serve `reset`. */
export function checkFormat(
  pattern: string,
  reset: ResetPeriod,
): { ok: true; pattern: FormatPattern } | { ok: false; error: string } {
  const parsed = parsePattern(pattern);
  if (!parsed.ok) return parsed;
  const missing = PERIOD_TOKENS[reset].filter((t) => !parsed.pattern.tokens.has(t));
  if (missing.length > 0) {
    const hint = reset === 'yearly' || missing.includes('yyyy') ? ' ({yy} alone does not name a year)' : '';
    return {
      ok: false,
      error: `A ${reset} reset needs ${missing.map((t) => `{${t}}`).join(', ')} in the pattern, or two periods would render the same IDs${hint}.`,
    };
  }
  return parsed;
}

/** Why `after` may not replace `before`, or null: reset and pattern stay, the sequence may only grow wider. */
export function changeProblem(before: FormatSpec, after: FormatSpec): string | null {
  if (before.resetPeriod !== after.resetPeriod) {
    return `The reset period stays ${before.resetPeriod}: the periods already counted would be counted again.`;
  }
  const old = parsePattern(before.pattern);
  const next = parsePattern(after.pattern);
  if (!old.ok || !next.ok) return next.ok ? null : next.error;
  if (patternShape(old.pattern) !== patternShape(next.pattern)) {
    return `The pattern stays ${before.pattern} (only its {seq:N} width may grow): IDs already issued could be issued again.`;
  }
  if (next.pattern.width < old.pattern.width) {
    return `The sequence width may grow but not shrink (it is ${old.pattern.width}): narrower IDs could repeat.`;
  }
  return null;
}

/** A formatted tag that does not exist (or was deleted): the engine's, the admin API's and the stores' one refusal. */
export function formatNotFound(bizTag: string): LeafError {
  return new LeafError('tag_not_found', `Formatted tag "${bizTag}" does not exist.`);
}
