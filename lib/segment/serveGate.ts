/** What the engine asks before it hands out an ID of a strict tag (lib/ordered answers; docs/design.md#ordered-tags). */
import { LeafError } from '../errors';

export interface ServeGate {
  /** Whether this node owns strict `bizTag` and its lease is still live by its own clock. */
  mayServe(bizTag: string): boolean;
  /** Why not, as a typed error a client retries. */
  refusal(bizTag: string): LeafError;
  /** The tag list says `bizTag` is strict: the gate hears it before any request can reach the engine for it. */
  heardStrict(bizTag: string): void;
}

/** Without lib/ordered nobody owns a strict tag: such a tag is never served from a buffer. */
export const NO_OWNER_GATE: ServeGate = {
  mayServe: () => false,
  refusal: (bizTag) =>
    new LeafError('owner_unavailable', `Tag "${bizTag}" is strict and no owner serves it here; try again shortly.`, {
      retryAfterSeconds: 1,
    }),
  heardStrict: () => undefined,
};

export function strictRangeRefused(bizTag: string): LeafError {
  return new LeafError(
    'strict_tag_range',
    `Tag "${bizTag}" is strict: IDs come one request at a time from its owner, never as a range lease.`,
  );
}
