'use client';

import { useRouter } from 'next/navigation';
import { type FormEvent, useState } from 'react';
import { Field } from '../ui/Field';
import { Notice } from '../ui/Notice';
import type { TagView, UpdateTagRequest } from './api';
import { showDecimal } from './display';
import { useDeleteTag, useUpdateTag } from './queries';
import { updateTagSchema } from './tagSchema';
import { type Draft, type FieldErrors, checkFields, serverErrors, toInteger } from './validation';

/**
 * One PATCH form's plumbing: client-side check against the shared schema, then the mutation; field errors from
 * either side, the client's first.
 */
function usePatchForm(bizTag: string) {
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const update = useUpdateTag(bizTag);
  const server = serverErrors(update.error);
  const submit = (draft: Draft<UpdateTagRequest>, onSuccess?: () => void) => {
    const checked = checkFields(updateTagSchema, draft);
    setClientErrors(checked.errors);
    update.reset();
    if (checked.ok) update.mutate(checked.request, { onSuccess });
  };
  return { update, server, errors: { ...server.fields, ...clientErrors }, submit };
}

/** Step and description. Mounted with the tag's values; polling does not overwrite what is being typed. */
export function EditTagForm({ tag }: { tag: TagView }) {
  const [step, setStep] = useState(String(tag.step));
  const [description, setDescription] = useState(tag.description ?? '');
  const { update, server, errors, submit } = usePatchForm(tag.bizTag);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit({ step: toInteger(step), description: description.trim() });
  };

  return (
    <form className="card form-grid" onSubmit={onSubmit} noValidate aria-labelledby="edit-title">
      <h2 id="edit-title">Settings</h2>
      <Field
        label="Step"
        name="step"
        inputMode="numeric"
        value={step}
        onChange={(e) => setStep(e.target.value)}
        error={errors.step}
        hint="The floor of the dynamic step; a raise applies at the next load"
      />
      <Field
        label="Description"
        name="description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={errors.description}
      />
      {server.form && (
        <Notice kind="error" title="Not saved.">
          {server.form}
        </Notice>
      )}
      <div className="form-actions span-2">
        <button type="submit" className="button-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save settings'}
        </button>
        {update.isSuccess && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}

/** max_id only goes up; the server refuses a lower value and says the current one. */
export function RaiseMaxIdForm({ tag }: { tag: TagView }) {
  const [maxId, setMaxId] = useState('');
  const { update, server, errors, submit } = usePatchForm(tag.bizTag);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit({ maxId: maxId.trim() }, () => setMaxId(''));
  };

  return (
    <form className="card" onSubmit={onSubmit} noValidate aria-labelledby="maxid-title">
      <h2 id="maxid-title">Raise max_id</h2>
      <p className="muted small">
        Now{' '}
        <span className="mono" data-testid="current-max-id">
          {showDecimal(tag.maxId)}
        </span>
        . New segments start above the new value; IDs below it are never handed out again.
      </p>
      <div className="inline-form">
        <Field
          label="New max_id"
          name="maxId"
          inputMode="numeric"
          value={maxId}
          onChange={(e) => setMaxId(e.target.value)}
          error={errors.maxId}
          autoComplete="off"
        />
        <button type="submit" className="button-primary" disabled={update.isPending || maxId.trim() === ''}>
          {update.isPending ? 'Raising…' : 'Raise max_id'}
        </button>
      </div>
      {server.form && (
        <Notice kind="error" title="Not raised.">
          {server.form}
        </Notice>
      )}
      {update.isSuccess && <p role="status">max_id is now {showDecimal(update.data.maxId)}.</p>}
    </form>
  );
}

/** Delete, after the tag's name is typed again. */
export function DeleteTagForm({ bizTag }: { bizTag: string }) {
  const [confirm, setConfirm] = useState('');
  const remove = useDeleteTag(bizTag);
  const router = useRouter();
  const server = serverErrors(remove.error);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (confirm === bizTag) remove.mutate(confirm, { onSuccess: () => router.push('/') });
  };

  return (
    <form className="card danger" onSubmit={onSubmit} noValidate aria-labelledby="delete-title">
      <h2 id="delete-title">Delete tag</h2>
      <p className="muted small">
        Clients asking for <code>{bizTag}</code> get 404 from then on. Its max_id is kept: re-creating the tag continues
        above it.
      </p>
      <div className="inline-form">
        <Field
          label={`Type ${bizTag} to confirm`}
          name="confirm"
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          error={server.fields.confirm}
          autoComplete="off"
          spellCheck={false}
        />
        <button type="submit" className="button-danger" disabled={confirm !== bizTag || remove.isPending}>
          {remove.isPending ? 'Deleting…' : 'Delete tag'}
        </button>
      </div>
      {server.form && (
        <Notice kind="error" title="Not deleted.">
          {server.form}
        </Notice>
      )}
    </form>
  );
}
