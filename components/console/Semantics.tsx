'use client';

import { type FormEvent, useState } from 'react';
import { Notice } from '../ui/Notice';
import { type Semantics, type TagView } from './api';
import { serverErrors } from './validation';
import { useSemantics, useSetFleetSemantics, useUpdateTag } from './queries';

/** What each choice means, in the words the README uses. */
export const SEMANTICS_LABEL: Record<Semantics, string> = {
  leaf: 'leaf — as Java Leaf: [max_id − step, max_id − 1]',
  'leaf-ts': 'leaf-ts — [max_id − step + 1, max_id]',
};

const SKIP_NOTE =
  'A switch from leaf-ts to leaf raises max_id by one (one ID skipped). Switch to leaf-ts only once no Java Leaf node runs.';

/** The tag's claim semantics: its own setting, or the fleet default. Sends only a change. */
export function TagSemanticsForm({ tag }: { tag: TagView }) {
  const settings = useSemantics();
  const own = settings.data?.tags[tag.bizTag];
  const current = own ?? 'default';
  const [choice, setChoice] = useState<Semantics | 'default' | null>(null);
  const update = useUpdateTag(tag.bizTag);
  const server = serverErrors(update.error);
  const value = choice ?? current;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (value === current) return;
    update.mutate({ semantics: value === 'default' ? null : value }, { onSuccess: () => setChoice(null) });
  };

  return (
    <form className="card" onSubmit={onSubmit} noValidate aria-labelledby="semantics-title" data-testid="tag-semantics">
      <h2 id="semantics-title">Claim semantics</h2>
      <p className="muted small">
        Now <strong data-testid="tag-semantics-value">{tag.semantics}</strong>
        {own === undefined ? ' (the fleet default)' : ' (this tag’s own setting)'}. {SKIP_NOTE}
      </p>
      <div className="inline-form">
        <label className="field">
          <span>Semantics</span>
          <select
            name="semantics"
            value={value}
            disabled={settings.data === undefined}
            onChange={(e) => setChoice(e.target.value as Semantics | 'default')}
          >
            <option value="default">fleet default ({settings.data?.default ?? '…'})</option>
            <option value="leaf">{SEMANTICS_LABEL.leaf}</option>
            <option value="leaf-ts">{SEMANTICS_LABEL['leaf-ts']}</option>
          </select>
        </label>
        <button type="submit" className="button-primary" disabled={update.isPending || value === current}>
          {update.isPending ? 'Switching…' : 'Switch'}
        </button>
      </div>
      {(server.form ?? server.fields.semantics) && (
        <Notice kind="error" title="Not switched.">
          {server.form ?? server.fields.semantics}
        </Notice>
      )}
      {update.isSuccess && <p role="status">Switched; max_id is now {update.data.maxId}.</p>}
    </form>
  );
}

/** The fleet default, for every tag without its own setting. */
export function FleetSemanticsCard() {
  const settings = useSemantics();
  const [choice, setChoice] = useState<Semantics | null>(null);
  const switcher = useSetFleetSemantics();
  const server = serverErrors(switcher.error);
  const current = settings.data?.default;
  const value = choice ?? current ?? 'leaf-ts';
  const own = settings.data === undefined ? 0 : Object.keys(settings.data.tags).length;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (value !== current) switcher.mutate(value, { onSuccess: () => setChoice(null) });
  };

  return (
    <form
      className="card"
      onSubmit={onSubmit}
      noValidate
      aria-labelledby="fleet-semantics-title"
      data-testid="fleet-semantics"
    >
      <h2 id="fleet-semantics-title">Claim semantics</h2>
      <p className="muted small">
        Fleet default <strong data-testid="fleet-semantics-value">{current ?? '…'}</strong>
        {own > 0 && `; ${own} ${own === 1 ? 'tag has' : 'tags have'} a setting of its own`}. {SKIP_NOTE}
      </p>
      <div className="inline-form">
        <label className="field">
          <span>Fleet default</span>
          <select
            name="semantics"
            value={value}
            disabled={current === undefined}
            onChange={(e) => setChoice(e.target.value as Semantics)}
          >
            <option value="leaf">{SEMANTICS_LABEL.leaf}</option>
            <option value="leaf-ts">{SEMANTICS_LABEL['leaf-ts']}</option>
          </select>
        </label>
        <button type="submit" className="button-primary" disabled={switcher.isPending || value === current}>
          {switcher.isPending ? 'Switching…' : 'Switch'}
        </button>
      </div>
      {server.form && (
        <Notice kind="error" title="Not switched.">
          {server.form}
        </Notice>
      )}
    </form>
  );
}
