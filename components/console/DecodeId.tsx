'use client';

import { type FormEvent, useState } from 'react';
import { Field } from '../ui/Field';
import { Notice } from '../ui/Notice';
import { type DecodedId, type IdForm, api } from './api';
import { useAnswer } from './useAnswer';
import { showDecimal } from './display';

/** "What is this ID?": an opaque ID's sequence number, a short form's value, its region (GET …/decode/{id}). */
export function DecodeIdForm({ bizTag }: { bizTag: string }) {
  const [id, setId] = useState('');
  const [format, setFormat] = useState<IdForm>('decimal');
  const { answer, error, pending, run, fail } = useAnswer<DecodedId>();

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const text = id.trim();
    if (text === '') return fail('Paste an ID of this tag.');
    void run(() => api.decodeId(bizTag, text, format));
  };

  return (
    <form className="card" onSubmit={onSubmit} noValidate aria-labelledby="decode-title" data-testid="decode-id">
      <h2 id="decode-title">Decode an ID</h2>
      <Field
        label="ID"
        value={id}
        onChange={(e) => setId(e.target.value)}
        autoComplete="off"
        spellCheck={false}
        inputClassName="mono"
      />
      <div className="field">
        <label htmlFor="decode-id-format">Written as</label>
        <select id="decode-id-format" value={format} onChange={(e) => setFormat(e.target.value as IdForm)}>
          <option value="decimal">decimal</option>
          <option value="base62">base62</option>
          <option value="base32">base32 (Crockford, with check)</option>
        </select>
      </div>
      <div className="form-actions">
        <button type="submit" disabled={pending}>
          {pending ? 'Decoding…' : 'Decode'}
        </button>
      </div>
      {error !== null && (
        <Notice kind="error" title="That ID cannot be decoded." testId="decode-error">
          {error}
        </Notice>
      )}
      {answer !== null && (
        <dl className="small decoded" data-testid="decode-answer">
          <dt>Value</dt>
          <dd className="mono">{showDecimal(answer.value)}</dd>
          <dt>Sequence number</dt>
          <dd className="mono" data-testid="decode-sequence">
            {showDecimal(answer.sequence)}
            {answer.encoding !== 'plain' && <span className="muted"> (before the permutation)</span>}
          </dd>
          {answer.region !== null && (
            <>
              <dt>Region</dt>
              <dd>
                {answer.region}, position {showDecimal(answer.position ?? '')}
              </dd>
            </>
          )}
          <dt>Claimed</dt>
          <dd data-testid="decode-claimed">
            {answer.claimed === null
              ? 'another region’s ID: its database knows'
              : answer.claimed
                ? `yes: at or below max_id ${showDecimal(answer.maxId)}, so it may have been handed out`
                : `no: above max_id ${showDecimal(answer.maxId)}, never handed out`}
          </dd>
          <dt>Issued</dt>
          <dd data-testid="decode-issued">
            {answer.issued.length === 0 ? (
              'no claim in the log holds it (claimed before the log began or was pruned, or by a Java Leaf node)'
            ) : (
              <ul>
                {answer.issued.map((c) => (
                  <li key={`${c.claimer}-${c.claimedAt}-${c.first}`}>
                    claimed by <span className="mono">{c.claimer}</span>
                    {c.kind === 'lease' ? ' for a range lease' : ''} at {c.claimedAt}; handed out between {c.servedFrom}{' '}
                    and{' '}
                    {c.servedUntil ?? 'now (its process is not known to have stopped serving it: running, or killed)'}
                  </li>
                ))}
              </ul>
            )}
          </dd>
          <dt>Short forms</dt>
          <dd className="mono">
            {answer.forms.base62} · {answer.forms.base32}
          </dd>
        </dl>
      )}
    </form>
  );
}
