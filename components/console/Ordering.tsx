'use client';

import { type FormEvent } from 'react';
import { Notice } from '../ui/Notice';
import type { TagView } from './api';
import { showInt } from './display';
import { useUpdateTag } from './queries';
import { serverErrors } from './validation';

/** A strict tag's owner lease in words: "1.2 s left", or how long ago it ran out. */
function leaseLeft(ms: number): string {
  return ms >= 0 ? `${(ms / 1000).toFixed(1)} s left` : `ran out ${(-ms / 1000).toFixed(1)} s ago`;
}

/**
 * The tag's ordering (docs/design.md#ordered-tags): strict — IDs increase across the whole fleet, served by one
 * owner — or segment order. Shows the owner, its epoch and lease, which move when that node stops.
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
        Now <strong data-testid="tag-ordering-value">{strict ? 'strict' : 'segment order'}</strong>.{' '}
        {strict
          ? 'Every ID is greater than every ID answered before the request was sent, across all nodes: one node owns the tag and the others relay to it. While the owner changes hands the tag answers 503 (retryable) for up to a lease.'
          : 'IDs increase on each node; across nodes a later ID may be smaller. Strict ordering makes them increase across the whole fleet, at the price of a short 503 when the owner stops.'}
      </p>
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
                <dd className="mono">{owner.address}</dd>
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
