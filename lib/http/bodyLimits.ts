/**
 * Request bodies. Admin bodies are small JSON: anything larger is refused. A refused body is still read to its
 * end and dropped (nginx's lingering close) so the client gets the answer instead of a reset — but only so
 * much of it, for so long, so a slow or endless body cannot hold a socket.
 */
export const BODY_LIMITS = Object.freeze({
  /** The largest body any route accepts. */
  maxBytes: 16 * 1024,
  /** How much of a refused body is read and dropped before the connection is closed anyway. */
  discardBytes: 8 * 1024 * 1024,
  /** How long a refused body may take to arrive before the connection is closed anyway. */
  discardMs: 5_000,
});
