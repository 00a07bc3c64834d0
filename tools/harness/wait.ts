/** Waiting, for the harness, the tools and the tests: a plain sleep, and a bounded poll on a condition. */

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` every `everyMs` until it returns a value other than undefined; undefined once `ms` have passed. */
export async function pollFor<T>(
  ms: number,
  check: () => T | undefined | Promise<T | undefined>,
  everyMs = 200,
): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined || Date.now() > deadline) return value;
    await sleep(everyMs);
  }
}
