'use client';

import { momentOf } from '@/lib/snowflake/timeBounds';
import { Field } from '../ui/Field';

export interface TimeWindowText {
  from: string;
  to: string;
}

/** A window's two ends as people write them: ISO 8601 with its zone, or ms since 1970. */
export function TimeWindowFields({
  value,
  onChange,
  labels,
}: {
  value: TimeWindowText;
  onChange: (value: TimeWindowText) => void;
  labels: { from: string; to: string };
}) {
  return (
    <>
      <Field
        label={labels.from}
        value={value.from}
        onChange={(e) => onChange({ ...value, from: e.target.value })}
        placeholder="2026-12-07T00:00:00Z"
        inputClassName="mono"
      />
      <Field
        label={labels.to}
        value={value.to}
        onChange={(e) => onChange({ ...value, to: e.target.value })}
        placeholder="2026-12-08T00:00:00Z"
        inputClassName="mono"
      />
    </>
  );
}

/** The window in ms, or the line that says what is wrong with it. */
export function readWindow({ from, to }: TimeWindowText): { fromMs: number; toMs: number } | string {
  const [fromMs, toMs] = [momentOf(from), momentOf(to)];
  if (fromMs === null || toMs === null)
    return 'Write each time as ISO 8601 with its zone (2026-12-07T18:00:00Z) or as ms since 1970.';
  if (toMs < fromMs) return 'The window ends before it starts.';
  return { fromMs, toMs };
}
