import { idRenderer, sequenceCap } from './pattern';
import { type ResetPeriod, canonicalTimeZone, dateFields, periodKey } from './period';
import { checkFormat } from './rules';

export interface PreviewInput {
  pattern: string;
  resetPeriod: ResetPeriod;
  timeZone: string;
  /** The moment to preview (ms since the Unix epoch). */
  now: number;
  /** A period's count when known (the format's current period): its next IDs start above it. */
  known?: { periodKey: string; maxId: number };
  count: number;
}

export type Preview =
  | { ok: true; periodKey: string; ids: string[]; exhausted: boolean }
  | { ok: false; field: 'pattern' | 'timeZone'; error: string };

/** The next IDs a format would issue now, for the console's preview (nodes may still hold lower ones). */
export function previewIds({ pattern, resetPeriod, timeZone, now, known, count }: PreviewInput): Preview {
  const checked = checkFormat(pattern, resetPeriod);
  if (!checked.ok) return { ok: false, field: 'pattern', error: checked.error };
  const zone = canonicalTimeZone(timeZone.trim());
  if (zone === undefined)
    return { ok: false, field: 'timeZone', error: `"${timeZone}" is not a time zone this browser knows.` };
  const fields = dateFields(zone, now);
  const key = periodKey(resetPeriod, fields);
  const first = known !== undefined && known.periodKey === key ? known.maxId + 1 : 1;
  const last = Math.min(first + count - 1, sequenceCap(checked.pattern.width));
  const render = idRenderer(checked.pattern, fields);
  const ids: string[] = [];
  for (let seq = first; seq <= last; seq++) ids.push(render(seq));
  return { ok: true, periodKey: key, ids, exhausted: ids.length < count };
}
