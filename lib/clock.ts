/** A timer started through a Clock; only that clock's clearTimeout/clearInterval understands it. */
export interface TimerHandle {
  readonly __timerHandle: never;
}

/** Injected time and timers, so every timing rule is testable without sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `ms`. The timer does not keep the process alive. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Accepts undefined, so callers need no guard. */
  clearTimeout(handle: TimerHandle | undefined): void;
  /** Runs `fn` every `ms`. The timer does not keep the process alive. */
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle | undefined): void;
}

type NodeTimer = ReturnType<typeof globalThis.setTimeout>;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = globalThis.setTimeout(fn, ms);
    timer.unref?.();
    return timer as unknown as TimerHandle;
  },
  clearTimeout: (handle) => globalThis.clearTimeout(handle as unknown as NodeTimer | undefined),
  setInterval(fn, ms) {
    const timer = globalThis.setInterval(fn, ms);
    timer.unref?.();
    return timer as unknown as TimerHandle;
  },
  clearInterval: (handle) => globalThis.clearInterval(handle as unknown as NodeTimer | undefined),
};
