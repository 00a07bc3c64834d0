/** Leaf's dynamic step rule, as one pure function. */
export const MAX_STEP = 1_000_000;
/** A segment that lasted less than this was too small: double the next one. */
export const SEGMENT_DURATION_MS = 15 * 60 * 1000;

export interface NextStepInput {
  /** Step of the segment loaded last. */
  step: number;
  /** The step stored in the database: the floor. */
  minStep: number;
  /** Milliseconds since the previous segment load. */
  sinceLastLoadMs: number;
}

export function nextStep({ step, minStep, sinceLastLoadMs }: NextStepInput): number {
  let next: number;
  if (sinceLastLoadMs < SEGMENT_DURATION_MS) {
    next = Math.min(step * 2, Math.max(MAX_STEP, step));
  } else if (sinceLastLoadMs < SEGMENT_DURATION_MS * 2) {
    next = step;
  } else {
    next = Math.floor(step / 2);
  }
  // Never below the DB step, even when an operator raised it since the last load.
  return Math.max(next, minStep);
}
