import type { Clock, TimerHandle } from './clock';

export const TIMED_OUT = Symbol('timed out');

/** A bound on the injected clock that several waits share; `clear` when done. */
export class Deadline {
  private readonly timer: TimerHandle;
  private readonly reached: Promise<typeof TIMED_OUT>;

  constructor(
    private readonly clock: Clock,
    ms: number,
  ) {
    let fire: () => void = () => {};
    this.reached = new Promise((resolve) => (fire = () => resolve(TIMED_OUT)));
    this.timer = clock.setTimeout(fire, ms);
  }

  race<T>(work: Promise<T>): Promise<T | typeof TIMED_OUT> {
    return Promise.race([work, this.reached]);
  }

  clear(): void {
    this.clock.clearTimeout(this.timer);
  }
}

/** `work`'s outcome, or TIMED_OUT once `ms` have passed on `clock`; a rejection of `work` passes through. */
export async function within<T>(clock: Clock, ms: number, work: Promise<T>): Promise<T | typeof TIMED_OUT> {
  const deadline = new Deadline(clock, ms);
  try {
    return await deadline.race(work);
  } finally {
    deadline.clear();
  }
}
