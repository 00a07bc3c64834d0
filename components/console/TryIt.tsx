'use client';

import type { UseMutationResult } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { isApiError } from './api';
import { readIdToken, saveIdToken } from './idToken';
import { Field } from '../ui/Field';
import { Notice } from '../ui/Notice';
import { useTakeIds } from './queries';
import { MAX_COUNT, readableLimit } from './tagSchema';

const SHOWN = 200;

/** Takes IDs from the real ID route, `/api/id/segment/{tag}?count=N`, as a client would. */
export function TryIt({ bizTag }: { bizTag: string }) {
  return <TakeIds take={useTakeIds(bizTag)} route={`/api/id/segment/${bizTag}`} />;
}

/** The "Take IDs" box of any ID route that answers `?count=N` with `ids` (`route` is shown, the mutation calls it). */
export function TakeIds({ take, route }: { take: UseMutationResult<string[], Error, number>; route: string }) {
  const [count, setCount] = useState('10');
  // The ID token field shows once the node asks for one (401/403), or when this tab already holds one.
  const [token, setToken] = useState(() => (typeof window === 'undefined' ? '' : (readIdToken() ?? '')));
  const refused = isApiError(take.error) && (take.error.status === 401 || take.error.status === 403);
  const ids = take.data ?? [];
  const n = Number(count);
  const valid = /^\d+$/.test(count) && n >= 1 && n <= MAX_COUNT;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) take.mutate(n);
  };

  return (
    <section aria-labelledby="try-title" className="card">
      <h2 id="try-title">Take IDs</h2>
      <form className="inline-form" onSubmit={onSubmit} noValidate>
        <Field
          label="How many IDs"
          name="count"
          inputMode="numeric"
          value={count}
          onChange={(e) => setCount(e.target.value)}
          error={count !== '' && !valid ? `From 1 to ${readableLimit(MAX_COUNT)}.` : undefined}
        />
        {(refused || token !== '') && (
          <Field
            label="ID token"
            name="id-token"
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => {
              setToken(e.target.value);
              saveIdToken(e.target.value.trim());
            }}
            hint="This node's ID routes need a token (LEAF_ID_TOKEN, or an access token naming this tag). Kept in this tab only."
          />
        )}
        <button type="submit" className="button-primary" disabled={!valid || take.isPending}>
          {take.isPending ? 'Fetching…' : 'Try it'}
        </button>
      </form>
      <p className="muted small">
        <code>
          GET {route}?count={valid ? n : 'N'}
        </code>
      </p>
      {take.error && (
        <Notice kind="error" title="No IDs.">
          {take.error.message}
        </Notice>
      )}
      {ids.length > 0 && (
        <output
          className="id-output"
          aria-label="Fetched IDs"
          data-testid="fetched-ids"
          data-first={ids[0]}
          data-last={ids[ids.length - 1]}
        >
          <span className="small muted">
            {ids.length} ID{ids.length === 1 ? '' : 's'}: {ids[0]}
            {ids.length > 1 ? ` … ${ids[ids.length - 1]}` : ''}
          </span>
          <span className="id-list mono">
            {ids.slice(0, SHOWN).join(' ')}
            {ids.length > SHOWN ? ` … (${ids.length - SHOWN} more)` : ''}
          </span>
        </output>
      )}
    </section>
  );
}
