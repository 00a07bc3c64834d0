'use client';

import { type FormEvent, useState } from 'react';
import { Notice } from '../ui/Notice';
import { type IssuedAnswer, api } from './api';
import { showDecimal } from './display';
import { type TimeWindowText, TimeWindowFields, readWindow } from './TimeWindow';
import { useAnswer } from './useAnswer';

/**
 * "Which IDs were handed out between … and …?" from the claim log (GET …/issued): every ID of the tag that can have
 * gone out in the window, as ranges — a superset, exact to whole claims (docs/design.md#ids-that-tell-when).
 */
export function IssuedBetweenForm({ bizTag }: { bizTag: string }) {
  const [window, setWindow] = useState<TimeWindowText>({ from: '', to: '' });
  const { answer, error, pending, run, fail } = useAnswer<IssuedAnswer>();

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const read = readWindow(window);
    if (typeof read === 'string') return fail(read);
    void run(() => api.issued(bizTag, new Date(read.fromMs).toISOString(), new Date(read.toMs).toISOString()));
  };

  return (
    <form className="card" onSubmit={onSubmit} noValidate aria-labelledby="issued-title" data-testid="issued-between">
      <h2 id="issued-title">IDs issued between</h2>
      <TimeWindowFields value={window} onChange={setWindow} labels={{ from: 'From', to: 'To' }} />
      <div className="form-actions">
        <button type="submit" disabled={pending}>
          {pending ? 'Reading the claim log…' : 'Find the IDs'}
        </button>
      </div>
      {error !== null && (
        <Notice kind="error" title="No answer." testId="issued-error">
          {error}
        </Notice>
      )}
      {answer !== null && (
        <div className="small" data-testid="issued-answer">
          {answer.ranges.length === 0 ? (
            <p data-testid="issued-none">No claim of this tag can have handed out an ID then.</p>
          ) : (
            <>
              <p>
                Every {answer.encoding === 'plain' ? 'ID' : 'sequence number'} handed out then is in these{' '}
                {answer.ranges.length === 1 ? 'range' : 'ranges'} ({showDecimal(answer.ids)} from {answer.claims}{' '}
                {answer.claims === 1 ? 'claim' : 'claims'})
                {answer.encoding === 'plain'
                  ? ':'
                  : ': an opaque ID is the permutation of one (decode it to see its number).'}
              </p>
              <ul className="mono" data-testid="issued-ranges">
                {answer.ranges.map((r) => (
                  <li key={`${r.first}-${r.stride}`}>
                    {showDecimal(r.first)} … {showDecimal(r.last)}
                    {r.stride > 1 && <span className="muted"> every {r.stride}th</span>}
                  </li>
                ))}
              </ul>
            </>
          )}
          <p className="muted" data-testid="issued-retention">
            The log keeps claims for {answer.retentionDays} days
            {answer.logSince === null
              ? '; it holds none of this tag yet.'
              : `; this tag's since ${answer.logSince}.`}{' '}
            Claims by Java Leaf nodes, and before the log existed, are not in it.
          </p>
        </div>
      )}
    </form>
  );
}
