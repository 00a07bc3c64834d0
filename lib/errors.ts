/**
 * Every failure the service reports has a code; the HTTP layer maps codes to statuses.
 * No magic negative IDs: an ID is only ever returned when it is a real, claimed ID.
 */
export type LeafErrorCode =
  | 'invalid_tag'
  | 'invalid_count'
  | 'invalid_request'
  | 'tag_not_found'
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
  | 'invalid_config';

const STATUS: Record<LeafErrorCode, number> = {
  invalid_tag: 400,
  invalid_count: 400,
  invalid_request: 400,
  tag_not_found: 404,
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
};

export class LeafError extends Error {
  readonly code: LeafErrorCode;
  readonly status: number;

  constructor(code: LeafErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LeafError';
    this.code = code;
    this.status = STATUS[code];
  }
}

export function isLeafError(e: unknown): e is LeafError {
  return e instanceof LeafError || (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'LeafError');
}

/** Wraps any store-side failure (driver error, timeout) without leaking driver details to clients. */
export function storeUnavailable(cause: unknown): LeafError {
  if (isLeafError(cause)) return cause;
  return new LeafError('store_unavailable', 'The ID store is unreachable; try again shortly.', { cause });
}
