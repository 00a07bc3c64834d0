'use client';

import { useEffect, useState } from 'react';
import type { ResetPeriod } from '@/lib/format/period';
import { previewIds } from '@/lib/format/preview';

const PREVIEWED = 3;

interface FormatPreviewProps {
  pattern: string;
  resetPeriod: ResetPeriod;
  timeZone: string;
  /** The format's current period and its count, when it exists (edit form). */
  known?: { periodKey: string; maxId: number };
}

/** The next IDs as the operator types: lib/format's own renderer, the current period in the chosen zone, ticking. */
export function FormatPreview({ pattern, resetPeriod, timeZone, known }: FormatPreviewProps) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  const preview = previewIds({ pattern, resetPeriod, timeZone, now, known, count: PREVIEWED });
  return (
    <div className="card format-preview span-2" aria-live="polite" data-testid="format-preview">
      <h3>Preview</h3>
      {preview.ok ? (
        <>
          <p className="muted small">
            Period{' '}
            <span className="mono" data-testid="preview-period">
              {preview.periodKey === '' ? '(never resets)' : preview.periodKey}
            </span>
            {known !== undefined && known.periodKey === preview.periodKey
              ? `, above the ${known.maxId} claimed so far`
              : ', from 1'}
          </p>
          <ol className="mono id-list" data-testid="preview-ids">
            {preview.ids.map((id) => (
              <li key={id}>{id}</li>
            ))}
          </ol>
          {preview.exhausted && <p className="field-error">The sequence ends here this period: widen {'{seq:N}'}.</p>}
        </>
      ) : (
        <p className="field-error" data-testid="preview-error">
          {preview.error}
        </p>
      )}
    </div>
  );
}
