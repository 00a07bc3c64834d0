/** Every failure has a code, and the HTTP layer a status for it: no magic negative IDs. */
export type LeafErrorCode =
  | 'invalid_tag'
  | 'invalid_count'
  | 'invalid_request'
  | 'tag_not_found'
  | 'node_not_found'
  | 'tag_exists'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'store_unavailable'
  | 'segment_unavailable'
  | 'id_space_exhausted'
  | 'segment_regressed'
  | 'not_ready'
  | 'invalid_id'
  | 'clock_moved_backwards'
  | 'snowflake_unavailable'
  | 'invalid_config'
  | 'validation_failed'
  | 'max_id_lowered'
  | 'max_id_below_tombstone'
  | 'confirmation_mismatch'
  | 'unauthorized'
  | 'forbidden_tag'
  | 'forbidden_origin'
  | 'token_not_found'
  | 'session_not_found'
  | 'request_timeout'
  | 'payload_too_large'
  | 'tag_misconfigured'
  | 'unsupported_media_type'
  | 'headers_too_large'
  | 'too_many_attempts'
  | 'sequence_exhausted'
  | 'format_conflict'
  | 'owner_unavailable'
  | 'not_owner'
  | 'strict_tag_range'
  | 'strict_tag'
  | 'encoding_conflict'
  | 'opaque_tag_range'
  | 'opaque_key_missing'
  | 'internal_error'
  | 'closed';

const STATUS: Record<LeafErrorCode, number> = {
  invalid_tag: 400,
  invalid_count: 400,
  invalid_request: 400,
  tag_not_found: 404,
  node_not_found: 404,
  tag_exists: 409,
  route_not_found: 404,
  method_not_allowed: 405,
  store_unavailable: 503,
  segment_unavailable: 503,
  id_space_exhausted: 503,
  segment_regressed: 503,
  not_ready: 503,
  invalid_id: 400,
  clock_moved_backwards: 503,
  snowflake_unavailable: 503,
  // A server misconfiguration found at start, never a client's input.
  invalid_config: 500,
  validation_failed: 400,
  max_id_lowered: 409,
  max_id_below_tombstone: 409,
  confirmation_mismatch: 400,
  unauthorized: 401,
  // A valid scoped token on a tag (or route) it does not cover.
  forbidden_tag: 403,
  // A console write with the session cookie from a page of another origin (a sibling subdomain, another site).
  forbidden_origin: 403,
  token_not_found: 404,
  session_not_found: 404,
  request_timeout: 408,
  payload_too_large: 413,
  tag_misconfigured: 503,
  // A formatted tag's period has used every number its {seq:N} holds: no ID until the next period (or a wider seq).
  sequence_exhausted: 503,
  // A format edit (or re-creation) that could issue an ID again.
  format_conflict: 409,
  // A strict tag whose owner cannot serve now (a handover, the database out of reach): retry after Retry-After.
  owner_unavailable: 503,
  // A request for the owner of a strict tag reached a node that does not own it (any more): retry.
  not_owner: 503,
  // A range lease would let a client hand out a strict tag's IDs out of order.
  strict_tag_range: 409,
  // @leaf-ts/embedded holds IDs in its own memory: a strict tag's come from its owner node, so it refuses the tag.
  strict_tag: 409,
  // A tag's encoding is fixed at creation: a re-creation under another one, or strict ordering of an opaque tag.
  encoding_conflict: 409,
  // A range lease hands out runs of consecutive IDs: an opaque tag has none, and its key stays on the nodes.
  opaque_tag_range: 409,
  // This process has no key, or another key, for an opaque tag: it refuses rather than hand out unpermuted IDs.
  opaque_key_missing: 503,
  // leaf-ts/embedded after close(): never an HTTP answer, but every code has a status.
  closed: 503,
  unsupported_media_type: 415,
  headers_too_large: 431,
  too_many_attempts: 429,
  // Only for a fault of ours that no typed error describes; logged, and answered without details.
  internal_error: 500,
};

/** Every code with its HTTP status (the API description lists them). */
export const ERROR_STATUS: Readonly<Record<LeafErrorCode, number>> = STATUS;

export class LeafError extends Error {
  readonly code: LeafErrorCode;
  readonly status: number;
  /** Per-field messages of a validation failure, shown beside the form fields. */
  readonly fields: Readonly<Record<string, string>> | undefined;
  /** The methods a route offers, for `method_not_allowed` (sent as the Allow header). */
  readonly allow: string | undefined;
  /** For `too_many_attempts`: when to try again (sent as the Retry-After header). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: LeafErrorCode,
    message: string,
    options?: { cause?: unknown; fields?: Record<string, string>; allow?: string; retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.name = 'LeafError';
    this.code = code;
    this.status = STATUS[code];
    this.fields = options?.fields;
    this.allow = options?.allow;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

export function isLeafError(e: unknown): e is LeafError {
  return (
    e instanceof LeafError || (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'LeafError')
  );
}

/** Wraps any store-side failure (driver error, timeout) without leaking driver details to clients. */
export function storeUnavailable(cause: unknown): LeafError {
  if (isLeafError(cause)) return cause;
  return new LeafError('store_unavailable', 'The ID store is unreachable; try again shortly.', { cause });
}

export function tokenNotFound(id: string): LeafError {
  return new LeafError('token_not_found', `Token "${id}" does not exist.`);
}

export function tagNotFound(bizTag: string): LeafError {
  return new LeafError('tag_not_found', `Tag "${bizTag}" does not exist.`);
}

/** 503s the same request may pass a moment later: a client retries them (docs/api.md#errors). */
export const RETRYABLE_CODES: ReadonlySet<LeafErrorCode> = new Set<LeafErrorCode>([
  'store_unavailable',
  'segment_unavailable',
  'not_ready',
  'snowflake_unavailable',
  'closed',
  'owner_unavailable',
  'not_owner',
]);
