/** Admin bodies are small JSON; a refused one is drained (nginx's lingering close), only so much and so long. */
export const BODY_LIMITS = Object.freeze({
  /** The largest body any route accepts. */
  maxBytes: 16 * 1024,
  /** How much of a refused body is read and dropped before the connection is closed anyway. */
  discardBytes: 8 * 1024 * 1024,
  /** How long a refused body may take to arrive before the connection is closed anyway. */
  discardMs: 5_000,
});
