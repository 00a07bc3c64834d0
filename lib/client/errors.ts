/**
 * The client's one error type. `code` is the server's own code when a server answered with one
 * (`tag_not_found`, `unauthorized`, `invalid_tag`, …), else one of the client's: `closed`, `timeout`,
 * `network`, `bad_response` (an answer that could not be confirmed), `unavailable` (no server gave a lease).
 */
export type LeafClientErrorCode =
  | 'closed'
  | 'timeout'
  | 'network'
  | 'bad_response'
  | 'unavailable'
  | 'invalid_tag'
  | 'invalid_count'
  | 'invalid_options'
  | (string & {});

export class LeafClientError extends Error {
  override readonly name = 'LeafClientError';

  constructor(
    readonly code: LeafClientErrorCode,
    message: string,
    /** The HTTP status when a server answered; absent for the client's own failures. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export function isLeafClientError(value: unknown): value is LeafClientError {
  return value instanceof LeafClientError;
}

export function closedError(): LeafClientError {
  return new LeafClientError('closed', 'The LeafClient is closed.');
}
