/** The client's one error type: the server's code when one answered, else the client's own. */
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
