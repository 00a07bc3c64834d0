'use client';

import { type FormEvent, useState } from 'react';
import { Field } from '../ui/Field';
import { Notice } from '../ui/Notice';
import type { CreatedToken, TokenView } from './api';
import { showUtc } from './display';
import { useCreateToken, useFormats, useRevokeToken, useTags, useTokens } from './queries';
import { TOKEN_NAME_MAX_LENGTH, createTokenSchema } from './tagSchema';
import { type FieldErrors, checkFields, serverErrors } from './validation';

/** Tags offered to pick from: the first page of the tag list (the API itself takes any valid tag name). */
const TAG_PICK_LIMIT = 500;

/** Per-tag access tokens: create (the token shown once), list, revoke. */
export function TokensPage() {
  const [created, setCreated] = useState<CreatedToken | null>(null);
  return (
    <>
      <NewTokenForm onCreated={setCreated} />
      {created && <CreatedTokenCard created={created} onDone={() => setCreated(null)} />}
      <TokenList />
    </>
  );
}

function NewTokenForm({ onCreated }: { onCreated: (c: CreatedToken) => void }) {
  const [name, setName] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const create = useCreateToken();
  const tagList = useTags({ q: '', sort: 'name', offset: 0, limit: TAG_PICK_LIMIT });
  const formats = useFormats();
  // A token names tags: one name covers the segment tag and the formatted tag of that name alike.
  const formatted = new Set((formats.data ?? []).map((f) => f.bizTag));
  const pickable = [...new Set([...(tagList.data?.tags.map((t) => t.bizTag) ?? []), ...formatted])].sort();
  const server = serverErrors(create.error);
  const errors: FieldErrors = { ...server.fields, ...clientErrors };
  const toggle = (tag: string) => setTags((t) => (t.includes(tag) ? t.filter((x) => x !== tag) : [...t, tag]));

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkFields(createTokenSchema, { name: name.trim(), tags });
    setClientErrors(checked.errors);
    create.reset();
    if (!checked.ok) return;
    create.mutate(checked.request, {
      onSuccess: (c) => {
        setName('');
        setTags([]);
        onCreated(c);
      },
    });
  };

  return (
    <form className="card form-grid" onSubmit={onSubmit} noValidate aria-labelledby="new-token-title">
      <h2 id="new-token-title">New access token</h2>
      <Field
        label="Name"
        name="name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={errors.name}
        hint={`Who uses it, up to ${TOKEN_NAME_MAX_LENGTH} characters`}
        autoComplete="off"
        className="span-2"
      />
      <fieldset className="span-2 token-tags" aria-describedby="token-tags-hint">
        <legend>Tags it may draw IDs from</legend>
        {pickable.map((tag) => (
          <label key={tag} className="token-tag">
            <input type="checkbox" name="tags" value={tag} checked={tags.includes(tag)} onChange={() => toggle(tag)} />{' '}
            <span className="mono">{tag}</span>
            {formatted.has(tag) && <span className="muted small"> (formatted)</span>}
          </label>
        ))}
        <p id="token-tags-hint" className={errors.tags ? 'field-error' : 'muted'}>
          {errors.tags ?? 'Any other tag answers 403; the snowflake routes need LEAF_ID_TOKEN.'}
        </p>
      </fieldset>
      {server.form && (
        <Notice kind="error" title="The token was not created.">
          {server.form}
        </Notice>
      )}
      <div className="form-actions span-2">
        <button type="submit" className="button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

function CreatedTokenCard({ created, onDone }: { created: CreatedToken; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(created.secret).then(() => setCopied(true));
  };
  return (
    <section className="card" aria-labelledby="created-token-title" data-testid="created-token">
      <h2 id="created-token-title">Token “{created.token.name}” created</h2>
      <Notice kind="warn" title="Copy it now: you will not see it again.">
        Only its SHA-256 is stored. Clients send it as <code>Authorization: Bearer …</code>.
      </Notice>
      <p>
        <code className="mono token-secret" data-testid="token-secret">
          {created.secret}
        </code>
      </p>
      <div className="form-actions">
        <button type="button" className="button-primary" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="button-quiet" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

function TokenList() {
  const query = useTokens();
  const tokens = query.data ?? [];
  return (
    <section className="card" aria-labelledby="token-list-title">
      <h2 id="token-list-title">Access tokens</h2>
      {query.error && (
        <Notice kind="error" title="The tokens could not be loaded.">
          {query.error.message}
        </Notice>
      )}
      {query.isPending ? (
        <p className="muted">Loading…</p>
      ) : tokens.length === 0 ? (
        <p className="muted">No access token yet: with no token and no LEAF_ID_TOKEN, the ID routes are open.</p>
      ) : (
        <div className="table-wrap">
          <table aria-label="Access tokens" data-testid="token-list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Tags</th>
                <th scope="col">Created</th>
                <th scope="col">Revoked</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <TokenRow key={t.id} token={t} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function TokenRow({ token: t }: { token: TokenView }) {
  const [confirming, setConfirming] = useState(false);
  const revoke = useRevokeToken();
  return (
    <tr data-testid="token-row" data-id={t.id} data-revoked={t.revokedAt !== null}>
      <td data-label="Name">{t.name}</td>
      <td data-label="Tags" className="mono">
        {t.tags.join(', ')}
      </td>
      <td data-label="Created" className="nowrap" title={t.createdBy}>
        {showUtc(t.createdAt)}
      </td>
      <td data-label="Revoked" className="nowrap">
        {t.revokedAt === null ? '—' : showUtc(t.revokedAt)}
      </td>
      <td>
        {t.revokedAt === null &&
          (confirming ? (
            <span className="nowrap">
              <button
                type="button"
                className="button-danger"
                disabled={revoke.isPending}
                onClick={() => revoke.mutate(t.id)}
              >
                Revoke “{t.name}”
              </button>{' '}
              <button type="button" className="button-quiet" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </span>
          ) : (
            <button type="button" className="button-quiet" onClick={() => setConfirming(true)}>
              Revoke…
            </button>
          ))}
        {revoke.error && <span className="field-error">{revoke.error.message}</span>}
      </td>
    </tr>
  );
}
