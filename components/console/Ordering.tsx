'use client';

import { type FormEvent } from 'react';
import { Notice } from '../ui/Notice';
import type { TagView } from './api';
import { showInt, showUtc } from './display';
import { useForgetParticipant, useUpdateTag } from './queries';
import { serverErrors } from './validation';

/** A strict tag's owner lease in words: "1.2 s left", or how long ago it ran out. */
function leaseLeft(ms: number): string {
  return ms >= 0 ? `${(ms / 1000).toFixed(1)} s left` : `ran out ${(-ms / 1000).toFixed(1)} s ago`;
}

/** A change to strict that waits for processes to acknowledge it: who, since when, and a way to forget the dead. */
function PendingChange({ tag }: { tag: TagView }) {
  const forget = useForgetParticipant(tag.bizTag);
  const pending = tag.pending;
  if (pending === null) return null;
  return (
    <div data-testid="tag-ordering-pending">
      <p className="small">
        <strong>Turning strict since {showUtc(Date.parse(pending.since))}</strong>: the order holds once every process
        below has applied the change (the tag answers 503, retryable, meanwhile).{' '}
        {pending.waitingFor.length === 0 ? 'Completing now.' : 'Waiting for:'}
      </p>
      {pending.waitingFor.length > 0 && (
        <ul className="small" data-testid="tag-ordering-waiting">
          {pending.waitingFor.map((p) => (
            <li key={p.instanceId}>
              <span className="mono">{p.label}</span> ({p.kind} on {p.host}, last seen{' '}
              {(p.lastSeenAgoMs / 1000).toFixed(0)} s ago){' '}
              <button
                type="button"
                className="button-quiet"
                disabled={forget.isPending}
                title="Only for a process you know is stopped for good: forgetting a live one can break the order."
                onClick={() => forget.mutate(p.instanceId)}
              >
                Forget (it is stopped)
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The tag's ordering (docs/design.md#ordered-tags): strict — IDs increase across the whole fleet, served by one
 * owner — or segment order. A change to strict is pending until every process applied it, strict since then; shows
 * the owner, its epoch and lease, which move when that node stops.
 */
export function TagOrderingForm({ tag }: { tag: TagView }) {
  const update = useUpdateTag(tag.bizTag);
  const server = serverErrors(update.error);
  const strict = tag.ordering === 'strict';
  const owner = tag.owner;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ ordering: strict ? 'none' : 'strict' });
  };

  return (
    <form className="card" onSubmit={onSubmit} noValidate aria-labelledby="ordering-title" data-testid="tag-ordering">
      <h2 id="ordering-title">Ordering</h2>
      <p className="muted small">
        Now <strong data-testid="tag-ordering-value">{strict ? 'strict' : 'segment order'}</strong>
        {tag.strictSince !== null && (
          <span data-testid="tag-strict-since"> since {showUtc(Date.parse(tag.strictSince))}</span>
        )}
        .{' '}
        {strict
          ? 'Every ID is greater than every ID answered before the request was sent, across all nodes: one node owns the tag and the others relay to it. While the owner changes hands the tag answers 503 (retryable) for up to a lease.'
          : 'IDs increase on each node; across nodes a later ID may be smaller. Strict ordering makes them increase across the whole fleet, at the price of a short 503 when the owner stops.'}
      </p>
      <PendingChange tag={tag} />
      {strict && (
        <dl className="stats" data-testid="tag-owner">
          <div className="stat">
            <dt>Owner</dt>
            <dd className="mono" data-testid="tag-owner-node">
              {owner === null ? 'none yet' : owner.nodeId}
            </dd>
          </div>
          {owner !== null && (
            <>
              <div className="stat">
                <dt>Address</dt>
                <dd className="mono nowrap">{owner.address}</dd>
              </div>
              <div className="stat">
                <dt>Epoch</dt>
                <dd data-testid="tag-owner-epoch">{showInt(owner.epoch)}</dd>
              </div>
              <div className="stat">
                <dt>Lease</dt>
                <dd>
                  {`held ${(owner.leaseAgeMs / 1000).toFixed(1)} s, `}
                  {leaseLeft(owner.leaseLeftMs)}
                </dd>
              </div>
            </>
          )}
        </dl>
      )}
      <button type="submit" className="button-primary" disabled={update.isPending}>
        {update.isPending ? 'Saving…' : strict ? 'Back to segment order' : 'Make strict'}
      </button>
      {(server.form ?? server.fields.ordering) && (
        <Notice kind="error" title="Not changed.">
          {server.form ?? server.fields.ordering}
        </Notice>
      )}
    </form>
  );
}
