'use client';

import { useRouter } from 'next/navigation';
import { type FormEvent, useState } from 'react';
import { createFormatSchema, updateFormatSchema } from '@/lib/admin/formatSchema';
import { RESET_PERIODS, type ResetPeriod } from '@/lib/format/period';
import { Field } from '../ui/Field';
import { Notice } from '../ui/Notice';
import type { FormatView } from './api';
import { FormatPreview } from './FormatPreview';
import { useCreateFormat, useDeleteFormat, useUpdateFormat } from './queries';
import { type FieldErrors, checkFields, serverErrors, toInteger } from './validation';

const ZONES = [
  'UTC',
  'Asia/Shanghai',
  'Asia/Tokyo',
  'Europe/London',
  'Europe/Berlin',
  'America/New_York',
  'America/Los_Angeles',
];

function ZoneField({ value, onChange, error }: { value: string; onChange: (v: string) => void; error?: string }) {
  return (
    <>
      <Field
        label="Time zone"
        name="timeZone"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        error={error}
        hint="IANA name: periods and date parts are read in it"
        list="format-zones"
        autoComplete="off"
      />
      <datalist id="format-zones">
        {ZONES.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
    </>
  );
}

const PATTERN_HINT = 'Literal text, date parts {yyyy} {yy} {MM} {dd} {HH} {mm} {ss}, one {seq:N}; {{ and }} for braces';

/** Create a formatted tag, with the live preview of its first IDs. */
export function NewFormatForm() {
  const [draft, setDraft] = useState({
    bizTag: '',
    pattern: 'ORD-{yyyyMMdd}-{seq:6}',
    resetPeriod: 'daily' as ResetPeriod,
    timeZone: 'UTC',
    step: '100',
    description: '',
  });
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const create = useCreateFormat();
  const router = useRouter();
  const server = serverErrors(create.error);
  const errors: FieldErrors = { ...server.fields, ...clientErrors };
  const set = (field: keyof typeof draft) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkFields(createFormatSchema, {
      ...draft,
      step: toInteger(draft.step),
      description: draft.description,
    });
    setClientErrors(checked.errors);
    create.reset();
    if (!checked.ok) return;
    create.mutate(checked.request, {
      onSuccess: (d) => router.push(`/formats/${encodeURIComponent(d.format.bizTag)}`),
    });
  };

  return (
    <form className="card form-grid" onSubmit={onSubmit} noValidate aria-labelledby="new-format-title">
      <h2 id="new-format-title" className="span-2">
        New formatted tag
      </h2>
      <Field
        label="Tag"
        name="bizTag"
        value={draft.bizTag}
        onChange={(e) => set('bizTag')(e.target.value)}
        error={errors.bizTag}
        autoComplete="off"
      />
      <Field
        label="Pattern"
        name="pattern"
        value={draft.pattern}
        onChange={(e) => set('pattern')(e.target.value)}
        error={errors.pattern}
        hint={PATTERN_HINT}
        autoComplete="off"
        className="mono"
      />
      <div className="field">
        <label htmlFor="format-reset">Reset</label>
        <select
          id="format-reset"
          name="resetPeriod"
          value={draft.resetPeriod}
          onChange={(e) => set('resetPeriod')(e.target.value)}
        >
          {RESET_PERIODS.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <small className="hint">Fixed once created</small>
      </div>
      <ZoneField value={draft.timeZone} onChange={set('timeZone')} error={errors.timeZone} />
      <Field
        label="Step"
        name="step"
        inputMode="numeric"
        value={draft.step}
        onChange={(e) => set('step')(e.target.value)}
        error={errors.step}
        hint="First claim of each period"
      />
      <Field
        label="Description"
        name="description"
        value={draft.description}
        onChange={(e) => set('description')(e.target.value)}
        error={errors.description}
      />
      <FormatPreview pattern={draft.pattern} resetPeriod={draft.resetPeriod} timeZone={draft.timeZone} />
      {server.form && (
        <Notice kind="error" title="The format was not created.">
          {server.form}
        </Notice>
      )}
      <div className="form-actions span-2">
        <button type="submit" className="button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create formatted tag'}
        </button>
      </div>
    </form>
  );
}

/** Edit what may change: the zone, the step, the description, and the pattern only by a wider {seq:N}. */
export function EditFormatForm({ format }: { format: FormatView }) {
  const [draft, setDraft] = useState({
    pattern: format.pattern,
    timeZone: format.timeZone,
    step: String(format.step),
    description: format.description ?? '',
  });
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});
  const update = useUpdateFormat(format.bizTag);
  const server = serverErrors(update.error);
  const errors: FieldErrors = { ...server.fields, ...clientErrors };
  const set = (field: keyof typeof draft) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const changes = {
      ...(draft.pattern !== format.pattern ? { pattern: draft.pattern } : {}),
      ...(draft.timeZone !== format.timeZone ? { timeZone: draft.timeZone } : {}),
      ...(draft.step !== String(format.step) ? { step: toInteger(draft.step) } : {}),
      ...(draft.description !== (format.description ?? '') ? { description: draft.description } : {}),
    };
    const checked = checkFields(updateFormatSchema, changes);
    setClientErrors(checked.errors);
    update.reset();
    if (checked.ok) update.mutate(checked.request);
  };

  return (
    <form className="card form-grid" onSubmit={onSubmit} noValidate aria-labelledby="edit-format-title">
      <h2 id="edit-format-title" className="span-2">
        Edit
      </h2>
      <Field
        label="Pattern"
        name="pattern"
        value={draft.pattern}
        onChange={(e) => set('pattern')(e.target.value)}
        error={errors.pattern}
        hint="Only the {seq:N} width may grow"
        autoComplete="off"
        className="mono"
      />
      <ZoneField value={draft.timeZone} onChange={set('timeZone')} error={errors.timeZone} />
      <Field
        label="Step"
        name="step"
        inputMode="numeric"
        value={draft.step}
        onChange={(e) => set('step')(e.target.value)}
        error={errors.step}
      />
      <Field
        label="Description"
        name="description"
        value={draft.description}
        onChange={(e) => set('description')(e.target.value)}
        error={errors.description}
      />
      <FormatPreview
        pattern={draft.pattern}
        resetPeriod={format.resetPeriod}
        timeZone={draft.timeZone}
        known={{ periodKey: format.currentPeriod, maxId: format.currentCount }}
      />
      {(server.form ?? errors._form) && (
        <Notice kind="error" title="Not saved.">
          {server.form ?? errors._form}
        </Notice>
      )}
      {update.isSuccess && <Notice kind="info" title="Saved." />}
      <div className="form-actions span-2">
        <button type="submit" className="button-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

/** Delete with a confirmation; the periods stay, so re-creating the tag continues above them. */
export function DeleteFormatButton({ bizTag }: { bizTag: string }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteFormat(bizTag);
  const router = useRouter();
  if (!confirming) {
    return (
      <button type="button" className="button-quiet" onClick={() => setConfirming(true)}>
        Delete…
      </button>
    );
  }
  return (
    <div className="form-actions">
      <span>Delete “{bizTag}”? Its periods are kept: a new format of this name continues above them.</span>
      <button
        type="button"
        className="button-danger"
        disabled={remove.isPending}
        onClick={() => remove.mutate(undefined, { onSuccess: () => router.push('/formats') })}
      >
        Delete
      </button>
      <button type="button" className="button-quiet" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {remove.error && (
        <Notice kind="error" title="Not deleted.">
          {remove.error.message}
        </Notice>
      )}
    </div>
  );
}
