/**
 * How big the soaks are. `npm test` runs them at the size that keeps every property they prove (each race, kill and
 * claim still happens, several times) in a suite of minutes; LEAF_TEST_SCALE=full (`npm run test:full`) runs the
 * volumes and slow paths the figures in docs/testing.md were measured with.
 */
export const FULL_SCALE = process.env.LEAF_TEST_SCALE === 'full';

/** `normal` under npm test, `full` under LEAF_TEST_SCALE=full. */
export function scaled<T>(normal: T, full: T): T {
  return FULL_SCALE ? full : normal;
}
