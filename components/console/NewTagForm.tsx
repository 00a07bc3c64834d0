'use client';

import Link from 'next/link';
import { type FormEvent, useState } from 'react';
import { Field } from '../ui/Field';
import { Notice } from '../ui/Notice';
import type { CreateTagRequest, TagView } from './api';
import { useCreateTag } from './queries';
import { BIZ_TAG_MAX_LENGTH, DESCRIPTION_MAX_LENGTH, MAX_STEP, createTagSchema, readableLimit } from './tagSchema';
import { type Draft, type FieldErrors, checkFields, serverErrors, toInteger } from './validation';

const EMPTY = { bizTag: '', step: '1000', maxId: '', description: '', encoding: 'plain' };

/** What each encoding does, said where it is chosen: it cannot be changed later. */
const ENCODING_HINT: Record<string, string> = {
  plain: 'IDs in issue order',
  opaque: 'IDs permuted under the fleet’s key: they reveal no count or order. Fixed for good',
  'opaque-js-safe': 'As opaque, every ID at most 2^53 − 1 (a safe JavaScript number). Fixed for good',
};

export function NewTagForm({ onCreated }: { onCreated?: (tag: TagView) => void }) {
  const [values, setValues] = useState(EMPTY);
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState<TagView | null>(null);
  const create = useCreateTag();
  const server = serverErrors(create.error);
  const errors: FieldErrors = { ...server.fields, ...clientErrors };

  const set = (name: keyof typeof EMPTY) => (e: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [name]: e.target.value }));

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const draft: Draft<CreateTagRequest> = { bizTag: values.bizTag.trim(), step: toInteger(values.step) };
    if (values.maxId.trim() !== '') draft.maxId = values.maxId.trim();
    if (values.description.trim() !== '') draft.description = values.description.trim();
    if (values.encoding !== 'plain') draft.encoding = values.encoding as CreateTagRequest['encoding'];
    const checked = checkFields(createTagSchema, draft);
    setClientErrors(checked.errors);
    create.reset();
    if (!checked.ok) return;
    create.mutate(checked.request, {
      onSuccess: (tag) => {
        setCreated(tag);
        setValues(EMPTY);
        onCreated?.(tag);
      },
    });
  };

  return (
    <form className="card form-grid" onSubmit={onSubmit} noValidate aria-labelledby="new-tag-title">
      <h2 id="new-tag-title">New tag</h2>
      <Field
        label="Tag"
        name="bizTag"
        value={values.bizTag}
        onChange={set('bizTag')}
        error={errors.bizTag}
        hint={`Letters, digits, _ - . : (up to ${BIZ_TAG_MAX_LENGTH})`}
        autoComplete="off"
        spellCheck={false}
      />
      <Field
        label="Step"
        name="step"
        inputMode="numeric"
        value={values.step}
        onChange={set('step')}
        error={errors.step}
        hint={`IDs per segment, 1 to ${readableLimit(MAX_STEP)}`}
      />
      <Field
        label="Initial max_id"
        name="maxId"
        inputMode="numeric"
        value={values.maxId}
        onChange={set('maxId')}
        error={errors.maxId}
        hint="First ID is max_id + 1; empty: 1, or above a deleted tag's"
      />
      <div className={`field${errors.encoding ? ' field-invalid' : ''}`}>
        <label htmlFor="new-tag-encoding">Encoding</label>
        <select
          id="new-tag-encoding"
          name="encoding"
          value={values.encoding}
          onChange={set('encoding')}
          aria-describedby="new-tag-encoding-hint"
          data-testid="new-tag-encoding"
        >
          <option value="plain">plain</option>
          <option value="opaque">opaque</option>
          <option value="opaque-js-safe">opaque, JS-safe</option>
        </select>
        {errors.encoding ? (
          <small id="new-tag-encoding-hint" className="field-error" role="alert">
            {errors.encoding}
          </small>
        ) : (
          <small id="new-tag-encoding-hint" className="hint">
            {ENCODING_HINT[values.encoding]}
          </small>
        )}
      </div>
      <Field
        label="Description"
        name="description"
        value={values.description}
        onChange={set('description')}
        error={errors.description}
        hint={`Optional, up to ${DESCRIPTION_MAX_LENGTH} characters`}
        className="span-2"
      />
      {server.form && (
        <Notice kind="error" title="The tag was not created.">
          {server.form}
        </Notice>
      )}
      <div className="form-actions span-2">
        <button type="submit" className="button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create tag'}
        </button>
        {created && !create.isPending && (
          <span role="status">
            Created <Link href={`/tags/${encodeURIComponent(created.bizTag)}`}>{created.bizTag}</Link>.
          </span>
        )}
      </div>
    </form>
  );
}
